/**
 * The counted rows of a report's period (core assembleReport turns them into the report): GROUP BY queries over the
 * decisions, approvals and revocations of [start, end), in the same form on SQLite and PostgreSQL. Timestamps are
 * ISO 8601 UTC text with milliseconds, so they compare as text (schema.ts).
 * Each query reads committed rows only; a period is reported after it ended (plus a grace), so what it reads no
 * longer grows but for outcomes recorded later (docs/reports.md: counts are as of generation).
 */
import type { ReportCounts } from '@aar/core';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';

export interface PeriodBounds {
  start: string;
  end: string;
}

export async function countPeriod(
  db: Kysely<Database>,
  period: PeriodBounds,
  generatedAt: string,
): Promise<ReportCounts> {
  const decisions = await db
    .selectFrom('decisions')
    .select(['decision', 'outcome', 'currency'])
    .select((eb) => [
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.sum<number | string | null>('amount_minor').as('amount_minor'),
    ])
    .where('now', '>=', period.start)
    .where('now', '<', period.end)
    .groupBy(['decision', 'outcome', 'currency'])
    .execute();
  const denials = await db
    .selectFrom('decisions')
    .select('reason')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('now', '>=', period.start)
    .where('now', '<', period.end)
    .where('decision', '=', 'deny')
    .groupBy('reason')
    .execute();
  // per stored status: how many, and how many had lapsed at generation (one expression, no parameter in GROUP BY)
  const approvals = await db
    .selectFrom('approvals')
    .select('status')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.sum<number | string>(sql`case when expires_at <= ${generatedAt} then 1 else 0 end`).as('lapsed'),
    ])
    .where('created_at', '>=', period.start)
    .where('created_at', '<', period.end)
    .groupBy('status')
    .execute();
  const revocations = await db
    .selectFrom('grant_revocations')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('grants'),
      eb.fn.count<number | string>('cascade_root').distinct().as('operations'),
    ])
    .where('revoked_at', '>=', period.start)
    .where('revoked_at', '<', period.end)
    .executeTakeFirstOrThrow();
  return {
    decisions: decisions.map((r) => ({
      decision: r.decision,
      outcome: r.outcome,
      currency: r.currency,
      count: r.count,
      amount_minor: r.amount_minor,
    })),
    denials: denials.map((r) => ({ reason: r.reason, count: r.count })),
    approvals: approvals.flatMap((r) => {
      const lapsed = Number(r.lapsed ?? 0);
      const rest = Number(r.count) - lapsed;
      return [
        ...(lapsed > 0 ? [{ status: r.status, lapsed: true, count: lapsed }] : []),
        ...(rest > 0 ? [{ status: r.status, lapsed: false, count: rest }] : []),
      ];
    }),
    revocations: { grants: revocations.grants, operations: revocations.operations },
  };
}

/**
 * The evidence pack ids of the period's decisions, in decision order: all of them when there are at most `max`,
 * else every `step`-th (row_number over the period, both dialects), so a sample spans the whole period.
 */
export async function periodPackIds(db: Kysely<Database>, period: PeriodBounds, step: number): Promise<string[]> {
  const rows =
    step <= 1
      ? await db
          .selectFrom('decisions')
          .select('evidence_refs')
          .where('now', '>=', period.start)
          .where('now', '<', period.end)
          .orderBy('seq')
          .execute()
      : (
          await sql<{ evidence_refs: string }>`
            select evidence_refs from (
              select evidence_refs, row_number() over (order by seq) as rn from decisions
              where "now" >= ${period.start} and "now" < ${period.end}) numbered
            where (rn - 1) % ${step} = 0
            order by rn`.execute(db)
        ).rows;
  return rows
    .map((r) => (JSON.parse(r.evidence_refs) as string[])[0])
    .filter((id): id is string => typeof id === 'string');
}
