/**
 * POST /v1/runtime/outcomes: what happened to an allowed purchase. `executed` settles the reservation (it keeps
 * counting against the day it was made); `failed` (before execution) and `refunded` (after) release it, so the daily
 * limit counts only money that actually left. Transitions: reserved -> executed | failed; executed -> refunded.
 * Reporting the outcome a decision already has is a no-op (safe to retry). The stored outcome a transition starts
 * from must be the one the chain records (chained-outcome.ts): an edited `outcome` is refused, not built on.
 */
import { AarError, moneyToJson, parseMintedId, type Reservation } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { DecisionOutcome } from '../../store/index.ts';
import { assertOutcomeChained } from '../authorize/chained-outcome.ts';
import { appendEvent } from '../events/append-event.ts';

export type ReportedOutcome = 'executed' | 'failed' | 'refunded';

const ALLOWED_FROM: Record<ReportedOutcome, DecisionOutcome> = {
  executed: 'reserved',
  failed: 'reserved',
  refunded: 'executed',
};

export interface OutcomeResult {
  policy_decision_id: string;
  outcome: DecisionOutcome;
  previous_outcome: DecisionOutcome;
  released: { amount: number; currency: string } | null;
}

export async function recordOutcome(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
  outcome: ReportedOutcome,
): Promise<OutcomeResult> {
  const id = parseMintedId('decision', rawId, '/policy_decision_id');
  const postgres = ctx.store.dialect === 'postgres';
  return ctx.writer.run(async (trx) => {
    let query = trx
      .selectFrom('decisions')
      .select(['policy_decision_id', 'outcome', 'reservation', 'spend_day', 'actor_entity_id', 'principal_entity_id'])
      .where('policy_decision_id', '=', id);
    if (postgres) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw new AarError('not_found', `decision \`${id}\` does not exist`);
    await assertOutcomeChained(trx, id, row.outcome);
    if (row.outcome === outcome) return { policy_decision_id: id, outcome, previous_outcome: outcome, released: null };
    if (row.outcome === 'none' || !row.reservation || !row.spend_day) {
      throw new AarError(
        'conflict',
        `decision \`${id}\` reserved nothing: only an allowed \`execute\` has an outcome`,
        { errors: [{ path: '/policy_decision_id', message: 'has no reservation' }] },
      );
    }
    if (ALLOWED_FROM[outcome] !== row.outcome) {
      throw new AarError('conflict', `decision \`${id}\` is \`${row.outcome}\`; \`${outcome}\` cannot follow it`, {
        errors: [{ path: '/outcome', message: `not allowed after ${row.outcome}` }],
      });
    }
    const reservation = JSON.parse(row.reservation) as Reservation;
    const release = outcome === 'failed' || outcome === 'refunded';
    if (release) {
      await trx
        .updateTable('spend_counters')
        .set((eb) => ({ reserved_minor: eb('reserved_minor', '-', reservation.amount.minor) }))
        .where('grant_id', 'in', reservation.grant_ids)
        .where('day', '=', row.spend_day)
        .execute();
    }
    const now = ctx.clock.now().toISOString();
    await trx.updateTable('decisions').set({ outcome, updated_at: now }).where('policy_decision_id', '=', id).execute();
    await appendEvent(trx, ctx, {
      event_type: `ns.purchase_authority.${outcome}`,
      actor_entity_id: row.actor_entity_id,
      principal_entity_id: row.principal_entity_id,
      subject_ref: id,
      reason_code: `purchase_${outcome}`,
      data: {
        previous_state: row.outcome,
        new_state: outcome,
        amount: moneyToJson(reservation.amount),
        reported_by: credential?.token_id ?? null,
      },
    });
    return {
      policy_decision_id: id,
      outcome,
      previous_outcome: row.outcome,
      released: release ? moneyToJson(reservation.amount) : null,
    };
  });
}
