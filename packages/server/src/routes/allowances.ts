/**
 * ACP allowances (CONTRACT section 21) with ACP's idempotency rules for `delegate_payment` (its OpenAPI, 2026-04-17):
 * - `Idempotency-Key` is REQUIRED: without it 400 `idempotency_key_required` (ACP's code), nothing read further;
 * - same key, same body: the first 201 replayed byte for byte (`Idempotent-Replayed: true`: http/idempotency.ts);
 * - same key, another body: 422 `idempotency_conflict` (ACP's code; checked here before the service-wide hook,
 *   which would say `idempotency_key_reused`: only two requests racing on one key can still get that one);
 * - same key while the first is running: 409 `idempotency_in_flight` (ACP's code).
 * Keys are scoped to the credential (ACP: "authenticated identity + endpoint"; a key is one request anyway).
 * Errors are this service's problem+json (RFC 9457) with ACP's `code` values and statuses, not ACP's error object.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { fieldError } from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { readIdempotencyKey, requestHash } from '../http/idempotency.ts';
import { createAllowance } from '../services/allowances/create-allowance.ts';
import { getMandate } from '../services/mandates/mandate-view.ts';
import { revokeMandate } from '../services/mandates/revoke-mandate.ts';
import { Allowance, RevokeMandateResult } from './mandate-schemas.ts';
import { IdParams } from './schemas.ts';

const KEY_PATH = '/headers/idempotency-key';

const CreateAllowanceBody = Type.Object(
  {
    format: Type.Literal('acp'),
    allowance: Type.Unknown({
      description:
        'the ACP `delegate_payment` allowance: `reason` (one_time), `max_amount` (minor units), `currency` ' +
        '(lower case), `checkout_session_id`, `merchant_id` (a merchant registered here), `expires_at`',
    }),
    risk_signals: Type.Optional(
      Type.Array(
        Type.Object(
          {
            type: Type.String({ maxLength: 64 }),
            score: Type.Integer(),
            action: Type.String({ maxLength: 64 }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 32 },
      ),
    ),
    metadata: Type.Optional(Type.Record(Type.String({ maxLength: 128 }), Type.String({ maxLength: 1024 }))),
    vaulted_token_id: Type.String({
      minLength: 1,
      maxLength: 256,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'the PSP\u2019s vaulted token id (ACP `id`, e.g. `vt_...`), bound as the instrument',
    }),
    parent_grant_id: Type.String({ description: 'the principal\u2019s grant the allowance is delegated under' }),
    actor_entity_id: Type.String({ description: 'the agent that will hold the allowance\u2019s grant' }),
    payment_method: Type.Optional(
      Type.Unknown({
        description: 'refused: 400 `pan_refused` when it holds a card number, else 400 `invalid_request`',
      }),
    ),
  },
  { additionalProperties: false },
);

/** ACP's key rules that the service-wide hook does not state in ACP's words (see the file comment). */
async function acpIdempotency(ctx: AppContext, req: FastifyRequest): Promise<void> {
  const key = readIdempotencyKey(req);
  if (key === undefined) {
    throw fieldError('idempotency_key_required', KEY_PATH, 'Idempotency-Key header is required');
  }
  if (req.credential === null) return;
  const known = await ctx.store.db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'expires_at'])
    .where('credential_id', '=', req.credential.token_id)
    .where('idem_key', '=', key)
    .executeTakeFirst();
  if (known && known.expires_at > ctx.clock.now().toISOString() && known.request_hash !== requestHash(req)) {
    throw fieldError(
      'idempotency_conflict',
      KEY_PATH,
      'Idempotency-Key has already been used with a different request body',
    );
  }
}

export async function allowanceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['mandates'];

  r.post('/v1/allowances', {
    config: {
      roles: ['admin', 'principal'],
      errors: [
        'pan_refused',
        'idempotency_key_required',
        'idempotency_conflict',
        'idempotency_in_flight',
        'invalid_id',
        'mandate_invalid',
        'reference_not_found',
        'reference_invalid',
        'conflict',
      ],
    },
    preValidation: async (req) => acpIdempotency(ctx, req),
    schema: {
      tags,
      summary: 'Bring an ACP allowance: a one-use grant under the principal\u2019s grant',
      operationId: 'createAllowance',
      description:
        'Takes an ACP `delegate_payment` allowance with its risk signals and metadata, and the PSP\u2019s vaulted ' +
        'token id; never the card (a `payment_method` is 400 `pan_refused` when it holds a card number, else 400 ' +
        '`invalid_request`). The allowance becomes a one-use grant delegated under `parent_grant_id` ' +
        '(max_amount_per_purchase and a `total` budget of `max_amount`, the merchant, valid until `expires_at`), ' +
        'recorded with `ns.allowance.accepted` in one transaction. `Idempotency-Key` is required (ACP): a replay ' +
        'answers the first 201, another body under the key is 422 `idempotency_conflict`.',
      headers: Type.Object(
        { 'idempotency-key': Type.Optional(Type.String({ description: 'required (ACP); 1-255 visible ascii' })) },
        { additionalProperties: true },
      ),
      body: CreateAllowanceBody,
      response: { 201: Allowance },
    },
    handler: async (req, reply) => {
      const body = req.body;
      return reply.code(201).send(
        await createAllowance(
          ctx,
          req.credential,
          {
            format: body.format,
            allowance: body.allowance,
            vaulted_token_id: body.vaulted_token_id,
            parent_grant_id: body.parent_grant_id,
            actor_entity_id: body.actor_entity_id,
            ...(body.risk_signals !== undefined ? { risk_signals: body.risk_signals } : {}),
            ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
            ...(body.payment_method !== undefined ? { payment_method: body.payment_method } : {}),
          },
          readIdempotencyKey(req) ?? null,
        ),
      );
    },
  });

  r.get('/v1/allowances/:id', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'An allowance, its state and its one-use grant',
      operationId: 'getAllowance',
      description:
        'The allowance with its derived state (active, used, revoked, expired) and the grant made from it. A ' +
        'principal credential sees its own principal\u2019s allowances only (another\u2019s is 404).',
      params: IdParams,
      response: { 200: Allowance },
    },
    handler: async (req) => getMandate(ctx, req.credential, req.params.id, 'allowance'),
  });

  r.post('/v1/allowances/:id/revoke', {
    config: { roles: ['admin', 'principal'], errors: ['invalid_id'] },
    schema: {
      tags,
      summary: 'Revoke an allowance: its grant, in one transaction',
      operationId: 'revokeAllowance',
      description:
        'Revokes the allowance\u2019s grant through the grant revocation cascade (`ns.authority.revoked`, ' +
        '`ns.mandate.revoked`). Idempotent.',
      params: IdParams,
      response: { 200: RevokeMandateResult },
    },
    handler: async (req) => {
      const result = await revokeMandate(ctx, req.credential, req.params.id, 'allowance');
      return { ...result };
    },
  });
}
