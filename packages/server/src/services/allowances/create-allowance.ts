/**
 * `POST /v1/allowances` (CONTRACT section 21): an ACP `delegate_payment` allowance becomes a ONE-use grant delegated
 * under an existing grant of the same principal, bound to the checkout session and the PSP's vaulted token.
 * - `aar` takes the allowance, never the card: a body holding a card number anywhere is refused by the JSON reader
 *   before any handler runs (400 `pan_refused`, http/strict-json.ts: nothing of it is stored or logged); a
 *   `payment_method` without one is still refused (400 `invalid_request`).
 * - The allowance is read by core parseAcpAllowance (ACP 2026-04-17 schema: `reason` one_time, `max_amount` minor
 *   units, lower-case `currency`, `checkout_session_id`, `merchant_id`, `expires_at`; nothing else) and mapped by
 *   acpAllowanceToScope: max_amount_per_purchase = max_amount, budget { max_amount, total }, allowed_merchants
 *   [merchant], valid_until = expires_at; `may_delegate: false`. The instrument is the parent grant's card token.
 * - ACP's `merchant_id` must be the id of a merchant registered here (`POST /v1/merchants` `id`, the plain id a
 *   purchase's `resource.merchant_id` carries; `ns:merchant:<id>` accepted): otherwise 422 `reference_not_found`.
 * - Grant, allowance row (digest = SHA-256 of the allowance's RFC 8785 text, which is the stored document) and
 *   `ns.allowance.accepted` are written in ONE unit; a refusal writes nothing. The same allowance accepted twice
 *   is 409 `conflict` naming the first (its digest is unique).
 * Idempotency (ACP's rules, routes/allowances.ts): the header is required; a replay answers the first 201.
 * Attacker assumption: the caller is an admin or the principal (the agent's credential is refused); the body is
 * hostile (every member checked, extra members refused).
 */
import {
  AarError,
  acpAllowanceToScope,
  canonicalJson,
  fieldError,
  mandateDigest,
  mintedId,
  parseAcpAllowance,
  parseEntityId,
  parseMintedId,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { writeDelegatedGrant } from '../grants/delegate-grant.ts';
import { parseGrantScope } from '../grants/grant-scope.ts';
import { MANDATE_GRANT_RULES } from '../mandates/mandate-grant-rules.ts';
import { mintMandateId } from '../mandates/mandate-ids.ts';
import { mandateInvalid } from '../mandates/mandate-invalid.ts';
import { notSubsetErrors, resolveMerchants } from '../mandates/mandate-parent.ts';
import { mandateView, type AllowanceView, type StoredConstraints } from '../mandates/mandate-view.ts';
import { isUniqueViolation } from '../unique-violation.ts';

export interface CreateAllowanceInput {
  format: 'acp';
  allowance: unknown;
  risk_signals?: unknown[];
  metadata?: Record<string, string>;
  vaulted_token_id: string;
  parent_grant_id: string;
  actor_entity_id: string;
  payment_method?: unknown;
}

export async function createAllowance(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateAllowanceInput,
  idempotencyKey: string | null,
): Promise<AllowanceView> {
  if (input.payment_method !== undefined) {
    // a card number there never gets this far (400 pan_refused at the JSON reader): this is a card without one
    throw fieldError(
      'invalid_request',
      '/payment_method',
      'is not taken: aar takes the allowance and the PSP’s vaulted token id, never the card',
    );
  }
  if (credential === null || (credential.role !== 'admin' && credential.role !== 'principal')) {
    throw new AarError('forbidden', 'only an admin or a principal credential may bring an allowance');
  }
  const parentId = parseMintedId('authority:grant', input.parent_grant_id, '/parent_grant_id');
  const grantee = parseEntityId(input.actor_entity_id, '/actor_entity_id').id;
  const now = ctx.clock.now();
  const parsed = parseAcpAllowance(input.allowance, '/allowance');
  if (!parsed.ok) throw mandateInvalid(parsed.errors, 'the allowance');
  const allowance = parsed.allowance;
  const [merchant] = Object.values(
    await resolveMerchants(ctx.store.db, { merchant_id: allowance.merchantId }, '/allowance'),
  );
  const mapped = acpAllowanceToScope(allowance, {
    merchant: `ns:merchant:${merchant!}`,
    nowSeconds: Math.floor(now.getTime() / 1000),
  });
  if (!mapped.ok) throw mandateInvalid(mapped.errors, 'the allowance');
  const own = parseGrantScope(mapped.scope as Record<string, unknown>, now, '/allowance/scope');
  own.may_delegate = false;

  const document = canonicalJson(input.allowance);
  const digest = mandateDigest(document);
  const allowanceId = mintMandateId('allowance', ctx.newUuid());
  const grantId = mintedId('authority:grant', ctx.newUuid());
  const stored: StoredConstraints = {
    constraints: [input.allowance],
    risk_signals: input.risk_signals ?? [],
    metadata: input.metadata ?? {},
  };
  const constraintsText = canonicalJson(stored);
  const expiresAt = allowance.expiresAt;

  try {
    return await ctx.writer.run(async (trx) => {
      const written = await writeDelegatedGrant(
        trx,
        ctx,
        credential,
        { parentId, grantee, own, grantId, now, mandate: { mandate_id: allowanceId, format: 'acp', digest } },
        MANDATE_GRANT_RULES,
      ).catch((error: unknown) => {
        throw notSubsetErrors(error) ?? error;
      });
      // after the caller's right is known (writeDelegatedGrant): whether an allowance exists is not disclosed
      const known = await trx
        .selectFrom('mandates')
        .select('mandate_id')
        .where('format', '=', 'acp')
        .where('digest', '=', digest)
        .executeTakeFirst();
      if (known) {
        throw new AarError('conflict', `this allowance was accepted already as \`${known.mandate_id}\``, {
          errors: [{ path: '/allowance', message: `was accepted already as \`${known.mandate_id}\`` }],
          extra: { allowance_id: known.mandate_id },
        });
      }
      // the event first: the row's created_at is the event's occurred_at (audit verify compares them)
      const accepted = await appendEvent(trx, ctx, {
        event_type: 'ns.allowance.accepted',
        actor_entity_id: actorOf(credential),
        principal_entity_id: written.row.principal_entity_id,
        subject_ref: allowanceId,
        reason_code: 'allowance_accepted',
        data: {
          allowance_id: allowanceId,
          format: 'acp',
          digest,
          grant_id: grantId,
          parent_grant_id: parentId,
          grantee_entity_id: grantee,
          merchant_id: merchant,
          checkout_session_id: mapped.checkoutSessionId,
          expires_at: expiresAt,
          constraints_digest: mandateDigest(constraintsText),
        },
      });
      const row = await trx
        .insertInto('mandates')
        .values({
          mandate_id: allowanceId,
          format: 'acp',
          digest,
          issuer: null,
          principal_entity_id: written.row.principal_entity_id,
          actor_entity_id: grantee,
          parent_grant_id: parentId,
          root_grant_id: written.root.grant_id,
          grant_id: grantId,
          constraints: constraintsText,
          document,
          single_use: 1,
          checkout_session_id: mapped.checkoutSessionId,
          vaulted_token_id: input.vaulted_token_id,
          idempotency_key: idempotencyKey,
          expires_at: expiresAt,
          used_by: null,
          created_at: accepted.occurred_at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return mandateView(row, written.view, 'active') as AllowanceView;
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AarError('conflict', 'this allowance was accepted just now', {
        errors: [{ path: '/allowance', message: 'was accepted already' }],
      });
    }
    throw error;
  }
}
