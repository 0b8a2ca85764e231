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
import type { Transaction } from 'kysely';
import type { Database, DecisionOutcome } from '../../store/index.ts';
import { assertOutcomeChained } from '../authorize/chained-outcome.ts';
import { isLivePurchase } from '../authorize/counter-buckets.ts';
import { counterMemoryOf } from '../authorize/counter-memory.ts';
import { maintainPurchaseCounters } from '../authorize/maintained-counters.ts';
import { lockPurchaseCounters } from '../authorize/purchase-counters.ts';
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
  return ctx.writer.run(async (trx) => recordOutcomeInUnit(trx, ctx, credential, id, outcome));
}

/**
 * The whole of `recordOutcome` inside a write-queue unit the caller runs, so that another state change can commit
 * with the outcome or not at all (services/payload-artefacts/execute-artefact.ts). `id` is a parsed decision id.
 */
export async function recordOutcomeInUnit(
  trx: Transaction<Database>,
  ctx: AppContext,
  credential: Credential | null,
  id: string,
  outcome: ReportedOutcome,
): Promise<OutcomeResult> {
  const postgres = ctx.store.dialect === 'postgres';
  const counterMemory = counterMemoryOf(ctx);
  if (postgres) {
    // PostgreSQL: the purchase counters' locks first (before the row lock below, as authorize takes them), so a
    // decision reading the principal's or the agent's counters never sees this outcome half-way (purchase-counters.ts)
    const parties = await trx
      .selectFrom('decisions')
      .select(['actor_entity_id', 'principal_entity_id'])
      .where('policy_decision_id', '=', id)
      .executeTakeFirst();
    if (parties) await lockPurchaseCounters(trx, postgres, parties);
  }
  let query = trx
    .selectFrom('decisions')
    .select([
      'policy_decision_id',
      'outcome',
      'reservation',
      'spend_day',
      'actor_entity_id',
      'principal_entity_id',
      'decision',
      'action',
      'now',
      'currency',
      'amount_minor',
    ])
    .where('policy_decision_id', '=', id);
  if (postgres) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw new AarError('not_found', `decision \`${id}\` does not exist`);
  await assertOutcomeChained(trx, id, row.outcome);
  if (row.outcome === outcome) return { policy_decision_id: id, outcome, previous_outcome: outcome, released: null };
  if (row.outcome === 'none' || !row.reservation || !row.spend_day) {
    throw new AarError('conflict', `decision \`${id}\` reserved nothing: only an allowed \`execute\` has an outcome`, {
      errors: [{ path: '/policy_decision_id', message: 'has no reservation' }],
    });
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
    // the purchase stops counting: out of the counters' buckets, in this transaction (counter-buckets.ts)
    if (isLivePurchase(row.decision, row.action)) await maintainPurchaseCounters(trx, counterMemory, row, -1);
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
}
