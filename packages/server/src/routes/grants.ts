import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { tryParseEntityId } from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { requirePrincipalAccess } from '../http/authenticate.ts';
import { createGrant } from '../services/grants/create-grant.ts';
import { getGrant } from '../services/grants/get-grant.ts';
import { listGrants } from '../services/grants/list-grants.ts';
import { PURCHASE_ACTIONS } from '../services/grants/purchase-actions.ts';
import { pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import { IdParams, MoneySchema, Timestamp } from './schemas.ts';

const StringList = Type.Array(Type.String(), { maxItems: 1000 });

export const GrantScope = Type.Object(
  {
    max_amount_per_purchase: Type.Optional(MoneySchema),
    max_daily_amount: Type.Optional(MoneySchema),
    requires_approval_above: Type.Optional(MoneySchema),
    allowed_merchant_categories: Type.Optional(StringList),
    blocked_merchant_categories: Type.Optional(StringList),
    allowed_jurisdictions: Type.Optional(StringList),
    valid_until: Type.Optional(Type.String({ description: 'ISO 8601 UTC timestamp' })),
    allowed_actions: Type.Optional(Type.Array(Type.Enum([...PURCHASE_ACTIONS]), { maxItems: 7 })),
    may_delegate: Type.Optional(Type.Boolean()),
    max_delegation_depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 16 })),
  },
  { additionalProperties: false },
);

const Grant = Type.Object({
  grant_id: Type.String({ description: '`ns:authority:grant:<uuid>`' }),
  parent_grant_id: Type.Union([Type.String(), Type.Null()]),
  principal_entity_id: Type.String(),
  actor_entity_id: Type.String(),
  capability_id: Type.String(),
  resource_id: Type.String({ description: '`ns:credential:card-token:<id>`' }),
  scope: GrantScope,
  state: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  depth: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
  link: Type.Object(
    {},
    { additionalProperties: true, description: 'the grant as signed by the service (`ns.authority_grant.v1`)' },
  ),
});

const CreateGrantBody = Type.Object(
  {
    principal_entity_id: Type.String({ description: 'person or organisation (`ns:human:<id>` accepted)' }),
    actor_entity_id: Type.String({ description: 'the grantee (`ns:agent:<id>` accepted)' }),
    capability_id: Type.String({
      description: '`ns:capability:payment_action:card_purchase` or `ns:capability:purchase:<action>`',
    }),
    resource_id: Type.String({ description: 'the card token credential, `ns:credential:card-token:<id>`' }),
    scope: GrantScope,
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    ...pageQueryProperties,
    principal_entity_id: Type.Optional(Type.String()),
    actor_entity_id: Type.Optional(Type.String()),
    state: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('revoked')])),
  },
  { additionalProperties: false },
);

export async function grantRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['grants'];

  r.post('/v1/grants', {
    config: { roles: ['admin', 'principal'] },
    schema: {
      tags,
      summary: 'Grant authority over a card token to an actor',
      body: CreateGrantBody,
      response: { 201: Grant },
    },
    handler: async (req, reply) => reply.code(201).send(await createGrant(ctx, req.credential, req.body)),
  });

  r.get('/v1/grants', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'List grants (a principal credential sees only its own)',
      querystring: ListQuery,
      response: { 200: pageSchema(Grant) },
    },
    handler: async (req) => {
      const q = req.query;
      const own = req.credential?.role === 'principal' ? (req.credential.principal_entity_id ?? undefined) : undefined;
      return listGrants(ctx, pageRequest(q), {
        principal_entity_id:
          own ??
          (q.principal_entity_id ? (tryParseEntityId(q.principal_entity_id)?.id ?? q.principal_entity_id) : undefined),
        actor_entity_id: q.actor_entity_id ? (tryParseEntityId(q.actor_entity_id)?.id ?? q.actor_entity_id) : undefined,
        state: q.state,
      });
    },
  });

  r.get('/v1/grants/:id', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'Read a grant with its signed link',
      params: IdParams,
      response: { 200: Grant },
    },
    handler: async (req) => {
      const grant = await getGrant(ctx, req.params.id);
      if (req.credential?.role === 'principal') requirePrincipalAccess(req.credential, grant.principal_entity_id);
      return grant;
    },
  });
}
