/**
 * GET /v1/decisions/stats: how many decisions there were per reason, and per hour or day, under the same filter as
 * the search. Counted by the database (GROUP BY on both dialects), never by reading rows into memory. Buckets are
 * prefixes of the `created_at` text (`YYYY-MM-DDTHH` or `YYYY-MM-DD`), so they are UTC hours or days.
 */
import type { Decision, ReasonCode } from '@aar/core';
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DecisionFilter } from './decision-filter.ts';
import { whereFilter } from './search-decisions.ts';

export type StatsBucket = 'hour' | 'day';

export interface DecisionStats {
  total: number;
  by_reason: { reason: ReasonCode; decision: Decision; count: number }[];
  /** oldest first; only buckets that had a decision */
  over_time: { start: string; allow_with_constraints: number; require_approval: number; deny: number }[];
}

/** At most this many buckets are returned (the newest): 31 days of hours, or almost three years of days. */
export const MAX_BUCKETS = 744;

export async function decisionStats(
  ctx: AppContext,
  filter: DecisionFilter,
  bucket: StatsBucket,
): Promise<DecisionStats> {
  const db = ctx.store.db;
  const byReason = await whereFilter(
    db
      .selectFrom('decisions')
      .select(['reason', 'decision', sql<number | string>`count(*)`.as('n')])
      .groupBy(['reason', 'decision']),
    filter,
  ).execute();

  const width = bucket === 'hour' ? 13 : 10;
  const prefix = sql<string>`substr(created_at, 1, ${sql.lit(width)})`;
  const overTime = await whereFilter(
    db
      .selectFrom('decisions')
      .select([prefix.as('bucket'), 'decision', sql<number | string>`count(*)`.as('n')])
      .groupBy([prefix, 'decision']),
    filter,
  ).execute();

  const buckets = new Map<string, DecisionStats['over_time'][number]>();
  for (const row of overTime) {
    const start = bucket === 'hour' ? `${row.bucket}:00:00Z` : `${row.bucket}T00:00:00Z`;
    const entry = buckets.get(start) ?? { start, allow_with_constraints: 0, require_approval: 0, deny: 0 };
    entry[row.decision] += Number(row.n);
    buckets.set(start, entry);
  }
  const by_reason = byReason
    .map((row) => ({ reason: row.reason as ReasonCode, decision: row.decision, count: Number(row.n) }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  return {
    total: by_reason.reduce((sum, row) => sum + row.count, 0),
    by_reason,
    over_time: [...buckets.values()].sort((a, b) => a.start.localeCompare(b.start)).slice(-MAX_BUCKETS),
  };
}
