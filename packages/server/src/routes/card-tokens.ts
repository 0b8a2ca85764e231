import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { requirePrincipalAccess } from '../http/authenticate.ts';
import { cardTokenView } from '../services/card-tokens/card-token-view.ts';
import { createCardToken } from '../services/card-tokens/create-card-token.ts';
import { findCardToken } from '../services/card-tokens/find-card-token.ts';
import { listCardTokens } from '../services/card-tokens/list-card-tokens.ts';
import { includesRunArtifacts } from '../services/conformance/run-artifacts.ts';
import { includeConformanceProperty } from './include-conformance-query.ts';
import { setCardTokenState } from '../services/card-tokens/set-card-token-state.ts';
import { pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import { IdParams, Timestamp } from './schemas.ts';

const CardToken = Type.Object({
  card_token_id: Type.String({ description: '`ns:card_token:<id>`' }),
  credential_id: Type.String({ description: "`ns:credential:card-token:<id>`, the form a grant's resource_id uses" }),
  principal_entity_id: Type.String(),
  network: Type.Union([Type.String(), Type.Null()]),
  last4: Type.Union([Type.String(), Type.Null()]),
  expires: Type.Union([Type.String(), Type.Null()]),
  state: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const CreateCardTokenBody = Type.Object(
  {
    id: Type.Optional(Type.String({ description: 'caller-chosen local id; minted when omitted' })),
    principal_entity_id: Type.String(),
    network_token: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'the network or wallet token reference; never a raw card number',
    }),
    network: Type.Optional(Type.String({ pattern: '^[a-z0-9_-]{1,32}$', description: 'e.g. visa, mastercard' })),
    last4: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
    expires: Type.Optional(Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM' })),
  },
  { additionalProperties: false },
);

export async function cardTokenRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['card tokens'];

  r.post('/v1/card-tokens', {
    config: {
      roles: ['admin', 'principal'],
      errors: ['invalid_id', 'reference_not_found', 'reference_invalid', 'conflict'],
    },
    schema: {
      tags,
      summary: 'Bind a card token to its principal',
      operationId: 'createCardToken',
      description:
        'Registers a network or wallet token as `ns:card_token:<id>` (credential `ns:credential:card-token:<id>`, ' +
        "the form a grant's `resource_id` names), `active`, owned by an active principal; records " +
        '`ns.card_token.created`. A raw card number anywhere in the body is refused (400 `pan_refused`) and never ' +
        'stored. A principal credential binds tokens to its own principal only.',
      body: CreateCardTokenBody,
      response: { 201: CardToken },
    },
    handler: async (req, reply) => reply.code(201).send(await createCardToken(ctx, req.credential, req.body)),
  });

  r.get('/v1/card-tokens', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'List card tokens (a principal credential sees only its own)',
      operationId: 'listCardTokens',
      description:
        'Card tokens in creation order, a page at a time (`limit`, `cursor`), optionally of one principal. For a ' +
        'principal credential the `principal_entity_id` filter is always its own principal. The network token ' +
        'itself is never returned, only `network`, `last4` and `expires`. What conformance-kit runs created is left ' +
        'out unless `include_conformance=true`.',
      querystring: Type.Object(
        { ...pageQueryProperties, ...includeConformanceProperty, principal_entity_id: Type.Optional(Type.String()) },
        { additionalProperties: false },
      ),
      response: { 200: pageSchema(CardToken) },
    },
    handler: async (req) => {
      const own = req.credential?.role === 'principal' ? (req.credential.principal_entity_id ?? undefined) : undefined;
      return listCardTokens(
        ctx,
        pageRequest(req.query),
        own ?? req.query.principal_entity_id,
        includesRunArtifacts(req.query),
      );
    },
  });

  r.get('/v1/card-tokens/:id', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'Read a card token',
      operationId: 'getCardToken',
      description:
        'One card token, by `ns:card_token:<id>` or by its credential id `ns:credential:card-token:<id>`. A ' +
        "principal credential reads only its own principal's tokens (403 otherwise).",
      params: IdParams,
      response: { 200: CardToken },
    },
    handler: async (req) => {
      const row = await findCardToken(ctx.store.db, req.params.id, '/params/id');
      if (req.credential?.role === 'principal') requirePrincipalAccess(req.credential, row.principal_entity_id);
      return cardTokenView(row);
    },
  });

  for (const [verb, target] of [
    ['suspend', 'suspended'],
    ['activate', 'active'],
  ] as const) {
    r.post(`/v1/card-tokens/:id/${verb}`, {
      config: { roles: ['admin', 'principal'], errors: ['conflict'] },
      schema: {
        tags,
        summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} a card token`,
        operationId: `${verb}CardToken`,
        description:
          verb === 'suspend'
            ? 'Sets the card token `suspended` and records `ns.card_token.suspended`: every authorization that uses ' +
              'it is denied (`instrument_inactive`) from the next request, while the grants bound to it stay as ' +
              'they are. Idempotent. A principal credential acts on its own tokens only.'
            : 'Sets a suspended card token `active` again and records `ns.card_token.activated`: the grants bound ' +
              'to it apply again from the next request. Idempotent. A principal credential acts on its own tokens only.',
        params: IdParams,
        response: { 200: CardToken },
      },
      handler: async (req) => setCardTokenState(ctx, req.credential, req.params.id, target),
    });
  }
}
