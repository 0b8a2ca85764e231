/**
 * POST /v1/risk-signals: an external risk engine sets the risk state of an entity or card token. `blocked` denies,
 * `elevated` requires the principal's approval, `normal` clears; a state with `expires_at` lapses back to normal.
 * The service is not a fraud engine (SPEC non-goals): it records the signal and applies it, nothing more.
 */
import { AarError, cardTokenId, fieldError, tryParseCardTokenRef, tryParseEntityId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { RiskStateValue } from '../../store/index.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';

export interface RiskSignalInput {
  entity_id: string;
  risk_state: RiskStateValue;
  reason?: string | undefined;
  expires_at?: string | undefined;
}

export interface RiskStateView {
  entity_id: string;
  risk_state: RiskStateValue;
  reason: string | null;
  expires_at: string | null;
  updated_at: string;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export async function recordRiskSignal(
  ctx: AppContext,
  credential: Credential | null,
  input: RiskSignalInput,
): Promise<RiskStateView> {
  const entity = tryParseEntityId(input.entity_id)?.id;
  const token = entity ? undefined : tryParseCardTokenRef(input.entity_id);
  const subject = entity ?? (token !== undefined ? cardTokenId(token) : undefined);
  if (!subject) throw fieldError('invalid_id', '/entity_id', 'must be an entity id or a card token id');
  const now = ctx.clock.now();
  let expiresAt: string | null = null;
  if (input.expires_at !== undefined) {
    if (!ISO_UTC.test(input.expires_at) || Number.isNaN(Date.parse(input.expires_at)))
      throw fieldError('invalid_request', '/expires_at', 'must be an ISO 8601 UTC timestamp');
    if (Date.parse(input.expires_at) <= now.getTime())
      throw fieldError('invalid_request', '/expires_at', 'must be in the future');
    expiresAt = new Date(Date.parse(input.expires_at)).toISOString();
  }
  const nowIso = now.toISOString();
  return ctx.writer.run(async (trx) => {
    const exists = entity
      ? await trx.selectFrom('entities').select('entity_id').where('entity_id', '=', subject).executeTakeFirst()
      : await trx
          .selectFrom('card_tokens')
          .select('card_token_id')
          .where('card_token_id', '=', subject)
          .executeTakeFirst();
    if (!exists)
      throw new AarError('reference_not_found', `\`${subject}\` does not exist`, {
        errors: [{ path: '/entity_id', message: 'does not exist' }],
      });
    const stored = await trx
      .selectFrom('risk_states')
      .select(['risk_state', 'expires_at'])
      .where('entity_id', '=', subject)
      .executeTakeFirst();
    // the state in force, as authorize reads it: a state past its expires_at has lapsed to normal
    const previousState =
      !stored || (stored.expires_at !== null && stored.expires_at <= nowIso) ? 'normal' : stored.risk_state;
    const row = {
      entity_id: subject,
      risk_state: input.risk_state,
      reason: input.reason ?? null,
      expires_at: expiresAt,
      updated_at: nowIso,
    };
    await trx
      .insertInto('risk_states')
      .values(row)
      .onConflict((oc) =>
        oc.column('entity_id').doUpdateSet({
          risk_state: row.risk_state,
          reason: row.reason,
          expires_at: row.expires_at,
          updated_at: row.updated_at,
        }),
      )
      .execute();
    await appendEvent(trx, ctx, {
      event_type: 'ns.risk.state_changed',
      actor_entity_id: actorOf(credential),
      principal_entity_id: null,
      subject_ref: subject,
      reason_code: `risk_${input.risk_state}`,
      data: { previous_state: previousState, new_state: input.risk_state, expires_at: expiresAt },
    });
    return row;
  });
}
