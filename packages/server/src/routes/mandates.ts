import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { createMandate } from '../services/mandates/create-mandate.ts';
import { getMandate } from '../services/mandates/mandate-view.ts';
import { revokeMandate } from '../services/mandates/revoke-mandate.ts';
import { Mandate, RevokeMandateResult } from './mandate-schemas.ts';
import { IdParams } from './schemas.ts';

const CreateMandateBody = Type.Object(
  {
    format: Type.Literal('ap2'),
    presentation: Type.String({
      minLength: 1,
      maxLength: 65_536,
      description: 'the AP2 presentation: an open or closed mandate SD-JWT, or a chain `open~~closed`',
    }),
    parent_grant_id: Type.String({ description: 'the principal\u2019s grant the mandate is delegated under' }),
    actor_entity_id: Type.String({ description: 'the agent that will hold the mandate\u2019s grant' }),
    payees: Type.Optional(
      Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 256 }), {
        description: 'AP2 payee id -> merchant id (`ns:merchant:<id>` or `<id>`), each a registered merchant',
      }),
    ),
  },
  { additionalProperties: false },
);

/** AP2 mandates (CONTRACT section 21). */
export async function mandateRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['mandates'];

  r.post('/v1/mandates', {
    config: {
      roles: ['admin', 'principal'],
      errors: ['invalid_id', 'mandate_invalid', 'reference_not_found', 'reference_invalid', 'conflict'],
    },
    schema: {
      tags,
      summary: 'Bring an AP2 mandate: verified, mapped, and made a grant under the principal\u2019s grant',
      operationId: 'createMandate',
      description:
        'Verifies the presentation (issuer key from the registered issuers only, every disclosure digest, key ' +
        'binding, `sd_hash`, audience, nonce, time), maps its constraints onto a grant scope (docs/mandates.md), ' +
        'and in one transaction records its nonces, the grant (a subset of `parent_grant_id`, bound to the ' +
        'mandate\u2019s digest in its signed link), the mandate and `ns.mandate.accepted`. A refusal is 422 ' +
        '`mandate_invalid` whose `errors[]` name each fault `{ path, code, detail }`, and writes nothing. The same ' +
        'presentation again is 409 `conflict` naming its mandate; another presentation reusing a key-binding ' +
        'nonce is `nonce_reused`. Admin, or a principal credential of the parent grant\u2019s principal.',
      body: CreateMandateBody,
      response: { 201: Mandate },
    },
    handler: async (req, reply) => reply.code(201).send(await createMandate(ctx, req.credential, req.body)),
  });

  r.get('/v1/mandates/:id', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'A mandate, its state and its grant',
      operationId: 'getMandate',
      description:
        'The mandate with its derived state (active, revoked, expired, used) and the grant made from it. A ' +
        'principal credential sees its own principal\u2019s mandates only (another\u2019s is 404).',
      params: IdParams,
      response: { 200: Mandate },
    },
    handler: async (req) => getMandate(ctx, req.credential, req.params.id, 'mandate'),
  });

  r.post('/v1/mandates/:id/revoke', {
    config: { roles: ['admin', 'principal'], errors: ['invalid_id'] },
    schema: {
      tags,
      summary: 'Revoke a mandate: its grant and everything below it, in one transaction',
      operationId: 'revokeMandate',
      description:
        'Revokes the mandate\u2019s grant through the grant revocation cascade: `ns.authority.revoked` per revoked ' +
        'grant and `ns.mandate.revoked`, in one transaction. The next purchase under it is denied ' +
        '(`mandate_revoked`). Revoking the principal\u2019s grant above it does the same. Idempotent.',
      params: IdParams,
      response: { 200: RevokeMandateResult },
    },
    handler: async (req) => revokeMandate(ctx, req.credential, req.params.id, 'mandate'),
  });
}
