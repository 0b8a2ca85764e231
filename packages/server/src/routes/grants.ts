import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { tryParseEntityId } from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { requirePrincipalAccess } from '../http/authenticate.ts';
import { createGrant } from '../services/grants/create-grant.ts';
import { getGrant } from '../services/grants/get-grant.ts';
import { getDelegation, getGrantChain } from '../services/grants/get-grant-chain.ts';
import { revokeGrant } from '../services/grants/revoke-grant.ts';
import { listGrants } from '../services/grants/list-grants.ts';
import { PURCHASE_ACTIONS } from '../services/grants/purchase-actions.ts';
import { pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import { includeConformanceProperty } from './include-conformance-query.ts';
import { includesRunArtifacts } from '../services/conformance/run-artifacts.ts';
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
    budget: Type.Optional(
      Type.Object(
        {
          amount: MoneySchema.properties.amount,
          currency: MoneySchema.properties.currency,
          period: Type.Enum(['day', 'week', 'month', 'year', 'total'], {
            description: 'UTC calendar period; `week` is the ISO week (Monday 00:00 UTC); `total` never resets',
          }),
        },
        {
          additionalProperties: false,
          description: 'a cumulative budget over the period, in the currency of the other limits (CONTRACT 21)',
        },
      ),
    ),
    allowed_merchants: Type.Optional(
      Type.Array(Type.String(), { maxItems: 1000, description: 'merchant ids (as `resource.merchant_id`)' }),
    ),
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

const DelegatorProof = Type.Object(
  {
    created: Type.String({ description: 'ISO 8601 UTC; within the signature window (300 s) of the server clock' }),
    nonce: Type.String({ description: '16-128 characters of `[A-Za-z0-9_-]`, used once per delegator' }),
    signature: Type.Object(
      {
        algorithm: Type.String({ description: '`ed25519`' }),
        key_id: Type.String({ description: "the delegator's entity id" }),
        signature: Type.String({ description: 'base64url of the 64-byte Ed25519 signature' }),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description:
      "the delegator's consent (required when the parent's actor has a registered key): an Ed25519 signature, " +
      'CONTRACT section 4 scheme, over `{ schema_version: "ns.delegation_statement.v1", delegator_entity_id, ' +
      'created, nonce, request }` where `request` is this body without `delegator_proof` (docs/delegation.md)',
  },
);

const CreateGrantBody = Type.Object(
  {
    principal_entity_id: Type.Optional(
      Type.String({ description: "person or organisation (`ns:human:<id>` accepted); a child inherits its parent's" }),
    ),
    actor_entity_id: Type.String({ description: 'the grantee (`ns:agent:<id>` accepted)' }),
    capability_id: Type.Optional(
      Type.String({
        description:
          "`ns:capability:payment_action:card_purchase` or `ns:capability:purchase:<action>`; a child inherits its parent's",
      }),
    ),
    resource_id: Type.Optional(
      Type.String({
        description:
          "the card token credential, `ns:credential:card-token:<id>` (the card token's own id `ns:card_token:<id>` " +
          "is accepted and stored as its credential); a child inherits its parent's",
      }),
    ),
    scope: Type.Optional(GrantScope),
    parent_grant_id: Type.Optional(
      Type.String({
        description:
          'sub-delegation: the parent grant. The child must be a subset of it, field by field (422 `scope_not_subset` names every wider field); omitted fields inherit',
      }),
    ),
    delegator_proof: Type.Optional(DelegatorProof),
  },
  { additionalProperties: false },
);

const RevokeResult = Type.Object({
  grant_id: Type.String(),
  state: Type.Literal('revoked'),
  revoked_count: Type.Integer({
    description: 'grants this call revoked (the grant and its active subtree); 0 if it was revoked already',
  }),
  already_revoked: Type.Boolean(),
  revoked_at: Timestamp,
  reason_code: Type.Union(
    [Type.Literal('principal_revoked_authority'), Type.Literal('admin_revoked_authority'), Type.Null()],
    {
      description: 'the reason recorded with the revocation events; null when it was revoked already',
    },
  ),
  audit_ref: Type.Union([Type.String(), Type.Null()]),
  elapsed_ms: Type.Number({ description: 'from the call to the commit of every revocation, event and audit entry' }),
});

const DelegationChain = Type.Object(
  {},
  {
    additionalProperties: true,
    description: '`ns.delegation_chain.v1`: links root first, keys, states, signed by the service (docs/delegation.md)',
  },
);

const ListQuery = Type.Object(
  {
    ...pageQueryProperties,
    ...includeConformanceProperty,
    principal_entity_id: Type.Optional(Type.String()),
    actor_entity_id: Type.Optional(Type.String()),
    state: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('revoked')])),
    parent_grant_id: Type.Optional(Type.String({ description: 'only the direct children of this grant' })),
  },
  { additionalProperties: false },
);

export async function grantRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['grants'];

  r.post('/v1/grants', {
    config: {
      roles: ['admin', 'principal'],
      errors: [
        'invalid_id',
        'invalid_amount',
        'unknown_currency',
        'invalid_signature',
        'reference_not_found',
        'reference_invalid',
        'scope_not_subset',
        'conflict',
      ],
    },
    schema: {
      tags,
      summary: 'Grant authority over a card token to an actor, or sub-delegate part of a grant (`parent_grant_id`)',
      operationId: 'createGrant',
      description:
        'Without `parent_grant_id`: a root grant from a principal to an actor over one of its card tokens; one that ' +
        'can move money must bound it (per-purchase and daily limits). With it: a sub-delegation, a subset of its ' +
        'parent field by field (422 `scope_not_subset` names every wider field), signed by the delegator ' +
        '(`delegator_proof`) when the delegator has a key. The service signs the link and records ' +
        '`ns.authority.granted` (root) or `ns.authority.delegated`; money limits are in major units, kept as ' +
        'integer minor units.',
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
      operationId: 'listGrants',
      description:
        'Grants in creation order, a page at a time (`limit`, `cursor`), filtered by principal, actor, `state` or ' +
        'parent (`parent_grant_id`: its direct children). A principal credential sees the grants of its own ' +
        'principal only, whatever filter it sends. What conformance-kit runs created is left out unless ' +
        '`include_conformance=true`.',
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
        parent_grant_id: q.parent_grant_id,
        includeConformance: includesRunArtifacts(q),
      });
    },
  });

  r.get('/v1/grants/:id', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'Read a grant with its signed link',
      operationId: 'getGrant',
      description:
        'One grant `ns:authority:grant:<uuid>` with its current state, scope (amounts in major units) and `link`, ' +
        'the `ns.authority_grant.v1` document the service signed when it was created. A principal credential reads ' +
        "its own principal's grants only.",
      params: IdParams,
      response: { 200: Grant },
    },
    handler: async (req) => {
      const grant = await getGrant(ctx, req.params.id);
      if (req.credential?.role === 'principal') requirePrincipalAccess(req.credential, grant.principal_entity_id);
      return grant;
    },
  });

  r.get('/v1/grants/:id/chain', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'The delegation chain of a grant, root first, signed, with the keys to verify it offline',
      operationId: 'getGrantChain',
      description:
        'Every link from the root grant to this one, root first, with each link state now, the service keys and ' +
        "the delegators' keys, signed as `ns.delegation_chain.v1`: enough to verify attenuation and signatures " +
        'offline (docs/delegation.md). A principal credential reads chains of its principal or chains it holds a link of.',
      params: IdParams,
      response: { 200: DelegationChain },
    },
    handler: async (req) => getGrantChain(ctx, req.credential, req.params.id),
  });

  r.get('/v1/delegations/:id', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: '`ns:delegation:<uuid>`: the chain that ends at grant `ns:authority:grant:<uuid>`',
      operationId: 'getDelegation',
      description:
        'Resolves the delegation node of a decision map: the same signed `ns.delegation_chain.v1` as ' +
        '`GET /v1/grants/{id}/chain` for the grant with the same uuid. Anything but `ns:delegation:<uuid>` is 400 ' +
        '`invalid_id`.',
      params: IdParams,
      response: { 200: DelegationChain },
    },
    handler: async (req) => getDelegation(ctx, req.credential, req.params.id),
  });

  r.post('/v1/grants/:id/revoke', {
    config: { roles: ['admin', 'principal'] },
    schema: {
      tags,
      summary: 'Revoke a grant and its whole subtree, in one transaction; idempotent',
      operationId: 'revokeGrant',
      description:
        'Revokes the grant and every active grant delegated from it, in one unit with one `ns.authority.revoked` ' +
        'event per grant and one audit entry for the operation; every instance denies them (`authority_revoked`) ' +
        'from the commit on. ' +
        'The principal of the chain (or an admin) may revoke. A second call answers `already_revoked: true`, ' +
        '`revoked_count: 0`.',
      params: IdParams,
      response: { 200: RevokeResult },
    },
    handler: async (req) => revokeGrant(ctx, req.credential, req.params.id),
  });
}
