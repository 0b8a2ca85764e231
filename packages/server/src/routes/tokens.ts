import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CONNECTOR_ID_PATTERN } from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { SECRET_OMITTED_DESCRIPTION } from '../http/one-time-secrets.ts';
import { SCOPES } from '../http/token-scopes.ts';
import { createToken, listTokens, revokeToken } from '../services/tokens/manage-tokens.ts';
import { pageRequest, PageQuery, pageSchema } from './pagination.ts';
import { IdParams, SINGLE_LINE_TEXT, Timestamp } from './schemas.ts';

const Role = Type.Union([
  Type.Literal('admin'),
  Type.Literal('runtime'),
  Type.Literal('principal'),
  Type.Literal('auditor'),
  Type.Literal('pep'),
]);

// the literals of SCOPES (token-scopes.ts), spelt out so that the answer's type keeps them
const Scope = Type.Union(
  [
    Type.Literal('memory.read'),
    Type.Literal('memory.write'),
    Type.Literal('reports.read'),
    Type.Literal('reports.write'),
    Type.Literal('search.read'),
  ],
  { description: 'a token scope of an opt-in capability (CONTRACT section 22): `<capability>.<access>`' },
);

const TokenInfo = Type.Object({
  token_id: Type.String(),
  role: Role,
  principal_entity_id: Type.Union([Type.String(), Type.Null()]),
  label: Type.Union([Type.String(), Type.Null()]),
  connector_id: Type.Union([Type.String(), Type.Null()], { description: 'the connector it is bound to, if any' }),
  scopes: Type.Array(Scope, { description: 'the token scopes it was given, sorted (none for most tokens)' }),
  created_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
});

const CreatedToken = Type.Object({
  ...TokenInfo.properties,
  token: Type.Optional(
    Type.String({ description: 'the secret, in the first answer only (absent from an idempotent replay)' }),
  ),
  secret_omitted: Type.Optional(Type.Literal(true, { description: SECRET_OMITTED_DESCRIPTION })),
});

const CreateTokenBody = Type.Object(
  {
    role: Role,
    principal_entity_id: Type.Optional(
      Type.String({
        description: 'required for the principal role, optional for the pep role, refused for the others',
      }),
    ),
    label: Type.Optional(Type.String({ maxLength: 128, pattern: SINGLE_LINE_TEXT })),
    connector_id: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: CONNECTOR_ID_PATTERN,
        description: 'binds it to a catalogue connector (GET /v1/connectors): the manifest’s rules apply to it',
      }),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 16,
        description:
          `token scopes of opt-in capabilities, granted explicitly to any role (admin included): ${SCOPES.join(', ')}. ` +
          'A scope of a capability this deployment has not enabled (AAR_OPT_IN) is 403 `capability_not_enabled`; ' +
          'an unknown one is 400 naming `/scopes/<i>`.',
      }),
    ),
  },
  { additionalProperties: false },
);

export async function tokenRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['credentials'];

  r.post('/v1/tokens', {
    config: {
      roles: ['admin'],
      errors: ['invalid_id', 'reference_not_found', 'reference_invalid', 'capability_not_enabled'],
      oneTimeSecrets: ['token'],
    },
    schema: {
      tags,
      summary: 'Create an API token (the secret is returned once)',
      operationId: 'createToken',
      description:
        'Issues a bearer token for one role (`admin`, `runtime`, `principal`, `auditor`, `pep`) and records ' +
        '`ns.credential.created`. The secret (`aar_…`) is in this answer only: the service keeps its hash. A ' +
        '`principal` token needs `principal_entity_id` (a person or organisation that is not tombstoned) and can ' +
        'act for that principal only; a `pep` token (it may only ask the AuthZEN endpoints) may name one and then ' +
        'evaluates for that principal only; the other roles refuse it. With `connector_id` the credential is bound to ' +
        'a connector of the catalogue (422 for an unknown or deprecated one): when its manifest says ' +
        '`requires_idempotency`, each POST it makes without `Idempotency-Key` is 400 `idempotency_key_required`. ' +
        '`scopes` grants opt-in capabilities (`memory.read`, ...; CONTRACT section 22) explicitly, to any role: a ' +
        'scope of a capability the deployment has not enabled is 403 `capability_not_enabled`. ' +
        'Sent with `Cache-Control: no-store`. Replayed for its `Idempotency-Key`, the answer is the same token ' +
        'without `token` and with `secret_omitted: true` (the secret is stored nowhere): revoke it and create ' +
        'another if the first answer was lost.',
      body: CreateTokenBody,
      response: { 201: CreatedToken },
    },
    handler: async (req, reply) => reply.code(201).send(await createToken(ctx, req.credential, req.body)),
  });

  r.get('/v1/tokens', {
    config: { roles: ['admin'] },
    schema: {
      tags,
      summary: 'List API tokens (never their secrets)',
      operationId: 'listTokens',
      description:
        'Tokens in creation order, a page at a time (`limit`, `cursor`), revoked ones included with `revoked_at`. ' +
        'Only ids, roles, principals, scopes and labels: a secret cannot be read back.',
      querystring: PageQuery,
      response: { 200: pageSchema(TokenInfo) },
    },
    handler: async (req) => listTokens(ctx, pageRequest(req.query)),
  });

  r.delete('/v1/tokens/:id', {
    config: { roles: ['admin'] },
    schema: {
      tags,
      summary: 'Revoke an API token',
      operationId: 'revokeToken',
      description:
        'Revokes the token `ns:token:<uuid>` and records `ns.credential.revoked`; the next request that presents ' +
        'it is 401 (nothing is cached). Idempotent: a revoked token is answered as it is.',
      params: IdParams,
      response: { 200: TokenInfo },
    },
    handler: async (req) => revokeToken(ctx, req.credential, req.params.id),
  });
}
