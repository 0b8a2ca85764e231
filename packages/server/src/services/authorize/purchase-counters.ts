/**
 * `facts.counters` (DESIGN-27 §3): the principal's and this agent's allowed `execute` decisions (not failed or
 * refunded) before this one, counted in the decision's own transaction, only when an active pack reads them.
 *
 * INVARIANT (velocity rules hold under concurrency): the counters are read after `lockPurchaseCounters` took the
 * principal's and the actor's lock, and the lock is held until the decision that read them commits with its own
 * row: two concurrent requests of one principal (or one agent), on any instance, never both count without the
 * other. PostgreSQL: transaction-scoped advisory locks on a hash of each id, taken in id order (so two transactions
 * never wait on each other crosswise) and BEFORE any row lock of the decision (spend rows), so a transaction holding a
 * spend row never waits on one; a hash collision only serialises more. SQLite has one writer, and the write queue
 * runs units one after another: a unit sees every decision committed or written before it.
 * Every row of the window counts, whatever its `now` (an instance whose clock runs ahead must not escape the count).
 * The reads use the partial indexes of migration 0018 (allowed executes only).
 *
 * Two readers, one definition: authorize reads the maintained buckets (maintained-counters.ts, O(buckets)), which
 * must equal `readPurchaseCounters` below, the recount (O(purchases in 30 days)): the reference the tests compare
 * with, and what a backtest reads for a past instant (`before`).
 */
import type { PurchaseCounters } from '@aar/core';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';

/** classid of the two-key advisory lock: keeps these locks apart from any other advisory lock on the database */
const COUNTERS_LOCK_CLASS = 0x61617231; // "aar1"

export interface CounterParties {
  principal_entity_id: string;
  actor_entity_id: string;
  merchant_id: string | undefined;
  /** the request's currency: spend is summed in it (a purchase in another currency does not add to it) */
  currency: string | undefined;
}

/** PostgreSQL only (SQLite: one writer); a no-op elsewhere. Must run before the decision takes any row lock. */
export async function lockPurchaseCounters(
  trx: Transaction<Database>,
  postgres: boolean,
  parties: Pick<CounterParties, 'principal_entity_id' | 'actor_entity_id'>,
): Promise<void> {
  if (!postgres) return;
  const ids = [...new Set([parties.principal_entity_id, parties.actor_entity_id])].sort();
  // one statement, locks taken left to right in the select list's order
  await sql`select ${sql.join(
    ids.map((id) => sql`pg_advisory_xact_lock(${COUNTERS_LOCK_CLASS}, hashtext(${id}))`),
  )}`.execute(trx);
}

const HOUR_MS = 3600_000;

/**
 * The counters at `now`, read in one statement: one pass over the principal's 30 days and one over the agent's day
 * (conditional sums; six separate counts walked the same index entries up to six times, 1.45 ms per authorize for a
 * principal with a few thousand purchases in the window). `db` is the decision's transaction (authorize) or the store
 * (a backtest recomputing a past decision's counters, with `before` its own instant: only decisions strictly
 * before it count there, since the later ones exist now but did not then).
 */
export async function readPurchaseCounters(
  db: Kysely<Database>,
  parties: CounterParties,
  now: Date,
  before?: string,
): Promise<PurchaseCounters> {
  const t = now.getTime();
  const since = (ms: number) => new Date(t - ms).toISOString();
  const [h1, d1, d30] = [since(HOUR_MS), since(24 * HOUR_MS), since(30 * 24 * HOUR_MS)];
  const currency = parties.currency ?? null;
  const live = sql`decision = 'allow_with_constraints' and action = 'execute' and outcome not in ('failed', 'refunded')`;
  const upTo = before === undefined ? sql`` : sql` and now < ${before}`;
  const row = (
    await sql<{
      p1h: number | string | null;
      p24h: number | string | null;
      s24h: number | string | null;
      s30d: number | string | null;
      a1h: number | string | null;
      a24h: number | string | null;
      seen: number | string | null;
    }>`select p.p1h, p.p24h, p.s24h, p.s30d, a.a1h, a.a24h,
      (select count(*) from (select 1 from decisions where principal_entity_id = ${parties.principal_entity_id}
        and merchant_id = ${parties.merchant_id ?? null} and ${live}${upTo} limit 1) m) as seen
    from
      (select
        sum(case when now >= ${h1} then 1 else 0 end) as p1h,
        sum(case when now >= ${d1} then 1 else 0 end) as p24h,
        sum(case when now >= ${d1} and currency = ${currency} then amount_minor else 0 end) as s24h,
        sum(case when currency = ${currency} then amount_minor else 0 end) as s30d
      from decisions where principal_entity_id = ${parties.principal_entity_id} and ${live}
        and now >= ${d30}${upTo}) p,
      (select
        sum(case when now >= ${h1} then 1 else 0 end) as a1h,
        sum(case when now >= ${d1} then 1 else 0 end) as a24h
      from decisions where actor_entity_id = ${parties.actor_entity_id} and ${live} and now >= ${d1}${upTo}) a`.execute(
      db,
    )
  ).rows[0];
  const n = (v: number | string | null | undefined) => Number(v ?? 0);
  return {
    purchases_1h: n(row?.p1h),
    purchases_24h: n(row?.p24h),
    spend_24h_minor: n(row?.s24h),
    spend_30d_minor: n(row?.s30d),
    // a request without a merchant has no first purchase at one
    merchant_first_purchase: parties.merchant_id !== undefined && n(row?.seen) === 0,
    agent_purchases_1h: n(row?.a1h),
    agent_purchases_24h: n(row?.a24h),
  };
}
