/**
 * A link's budget (`scope.budget`, aar-decide/1.4.0): what it has spent in its current period, read inside the
 * decision's transaction and filled into the link's `GrantSnapshot.budget_spent` before decide reads it.
 *
 * RULE: `budget_spent` of a grant = the sum of its spend counters (`spend_counters(grant_id, day)`, which already count
 * its whole subtree: a reservation is added to every grant of the deciding chain) over the days from
 * `budgetPeriodStart(period, now)` (every day for `total`) on. Only links whose OWN scope has a budget get it; decide
 * fails closed (`budget_exceeded`) on a budgeted link without it.
 *
 * INVARIANTS
 * - Atomic like the daily limit: today's row of every grant of every covering chain is already created and locked
 *   (commit-decision.ts) for a purchase, so two purchases against one budget serialise on it, on any number of
 *   instances. Earlier days' rows only go down (an outcome releases money on the day it was reserved), so reading them
 *   without a lock can only over-count (fail closed).
 * - Midnight (PostgreSQL; SQLite has one writer): a purchase decided just before midnight (its day D-1) may commit after one decided just after (day D).
 *   So a purchase whose budget period reaches back past today also creates and locks YESTERDAY's row of its budgeted
 *   grants (after today's: rows are locked by day descending, then grant id, so no two transactions wait on each other
 *   in a cycle), and sums every row from the period's start on, including days after its own today (committed by a
 *   transaction that held yesterday's lock before it). Either transaction then sees the other's reservation.
 * - Each row summed is backed by the decisions like today's (chained-spend.ts, assertSpendDaysChained): a lowered
 *   counter of any day of the period is refused (fail closed), recounted only when this instance's memory differs.
 *
 * RESIDUAL (docs/audit.md): a past day's row deleted outright reads as 0 here; verify's full run names it
 * (check-spend-counters.ts), as for any day.
 * Attacker: the database but not the key (chained-spend.ts); the request cannot name a period or a day.
 */
import { budgetPeriodStart, type Budget, type GrantSnapshot } from '@aar/core';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';
import { assertSpendDaysChained, type SpendMemory } from './chained-spend.ts';
import { ENSURE_SPEND_ROW, SPEND_ROWS_FOR_UPDATE, SPEND_ROWS_FROM } from './decision-statements.ts';

/** The first day a `total` budget counts from: before every day a counter can have. */
const EVERY_DAY = '0000-01-01';

export interface BudgetSpendInput {
  /** every link of every covering chain (a grant may appear in several: same row, same scope) */
  links: readonly GrantSnapshot[];
  nowIso: string;
  /** today, UTC `YYYY-MM-DD` (the day reservations are counted against) */
  day: string;
  /** the request may reserve money (an `execute` with an amount): yesterday's rows are created and locked */
  reserves: boolean;
  postgres: boolean;
}

/** Fills `budget_spent` into every link whose own scope has a budget; no statement when none has. */
export async function fillBudgetSpent(
  trx: Transaction<Database>,
  memory: SpendMemory,
  input: BudgetSpendInput,
): Promise<void> {
  const starts = new Map<string, { start: string; currency: string }>();
  for (const link of input.links) {
    const budget = budgetOf(link);
    if (!budget || starts.has(link.grant_id)) continue;
    const start = budgetPeriodStart(budget.period, input.nowIso);
    starts.set(link.grant_id, { start: start ?? EVERY_DAY, currency: budget.currency });
  }
  if (starts.size === 0) return;
  const grantIds = [...starts.keys()].sort();

  const yesterday = previousDay(input.day);
  const reachBack = grantIds.filter((id) => starts.get(id)!.start <= yesterday);
  // PostgreSQL only: SQLite has one writer, so no transaction can commit between this one's reads
  if (input.postgres && input.reserves && reachBack.length > 0) {
    for (const grantId of reachBack) {
      await ENSURE_SPEND_ROW.execute(trx, {
        grant_id: grantId,
        day: yesterday,
        currency: starts.get(grantId)!.currency,
      });
    }
    await SPEND_ROWS_FOR_UPDATE.execute(trx, { day: yesterday }, reachBack);
  }

  const from = grantIds.map((id) => starts.get(id)!.start).sort()[0]!;
  const rows = (await SPEND_ROWS_FROM.execute(trx, { from }, grantIds)).rows.filter(
    (row) => row.day >= starts.get(row.grant_id)!.start,
  );
  await assertSpendDaysChained(trx, memory, rows);
  const spent = new Map<string, number>();
  for (const row of rows) spent.set(row.grant_id, (spent.get(row.grant_id) ?? 0) + Number(row.reserved_minor));
  for (const link of input.links) {
    const budget = budgetOf(link);
    if (budget) link.budget_spent = { minor: spent.get(link.grant_id) ?? 0, currency: budget.currency };
  }
}

/** The link's own budget when it is well-formed; a malformed one is left to decide (fails closed without spend). */
function budgetOf(link: GrantSnapshot): Budget | undefined {
  const budget = link.scope.budget;
  if (!budget || typeof budget.period !== 'string' || typeof budget.currency !== 'string') return undefined;
  return budget;
}

/** `YYYY-MM-DD` of the UTC day before `day`. */
export function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}
