/**
 * The reports of schedules whose period has ended (docs/reports.md "Generation: once per period"), one tick of the
 * report worker (workers/report-worker.ts).
 * EXACTLY ONCE PER PERIOD, with any number of instances on one database: a report is built outside the write unit,
 * then stored only if, inside the unit, the schedule's row (PostgreSQL: taken `FOR UPDATE SKIP LOCKED`, so an
 * instance never waits on another) is still live and still at that period; the same unit moves the schedule to the
 * next period. An instance that lost the race sees the cursor moved (or the row locked) and stores nothing; the
 * unique key (schedule_id, period_start) refuses a duplicate whatever happens. SQLite has a single writer.
 * A period is reported `REPORT_GRACE_MS` after its end, so authorize calls in flight at the boundary (decided before
 * the end, committed just after) are counted. Missed periods (no instance ran) are caught up oldest first, at most
 * `maxPerTick` reports per tick.
 */
import { nextPeriod, parseEvery } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { buildReport, storeReport, type BuiltReport } from './generate-report.ts';
import type { ScheduleRow } from './report-schedules.ts';

export const REPORT_GRACE_MS = 5_000;
export const DEFAULT_MAX_PER_TICK = 24;

export interface GeneratedReport {
  report_id: string;
  schedule_id: string;
  period_start: string;
}

/** Stores `built` as the report of `row`'s current period, unless that period is no longer the schedule's next. */
async function claimAndStore(ctx: AppContext, row: ScheduleRow, built: BuiltReport): Promise<ScheduleRow | null> {
  return ctx.writer.run(async (trx) => {
    let query = trx.selectFrom('report_schedules').selectAll().where('schedule_id', '=', row.schedule_id);
    if (ctx.store.dialect === 'postgres') query = query.forUpdate().skipLocked();
    const current = await query.executeTakeFirst();
    if (!current || current.deleted_at !== null || current.next_start !== row.next_start) return null;
    const taken = await trx
      .selectFrom('compliance_reports')
      .select('report_id')
      .where('schedule_id', '=', row.schedule_id)
      .where('period_start', '=', row.next_start)
      .executeTakeFirst();
    if (taken) return null;
    await storeReport(trx, ctx, built, { actor: null, createdBy: null, reason: 'report_scheduled_period_ended' });
    const next = nextPeriod(parseEvery(current.every), {
      start: new Date(current.next_start),
      end: new Date(current.next_end),
    });
    return trx
      .updateTable('report_schedules')
      .set({ next_start: next.start.toISOString(), next_end: next.end.toISOString() })
      .where('schedule_id', '=', row.schedule_id)
      .where('next_start', '=', row.next_start)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** Generates the reports that are due now; returns those this instance stored. */
export async function generateDueReports(
  ctx: AppContext,
  maxPerTick = DEFAULT_MAX_PER_TICK,
): Promise<GeneratedReport[]> {
  const out: GeneratedReport[] = [];
  const dueBy = () => new Date(ctx.clock.now().getTime() - REPORT_GRACE_MS).toISOString();
  const due = await ctx.store.db
    .selectFrom('report_schedules')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where('next_end', '<=', dueBy())
    .orderBy('next_end')
    .orderBy('seq')
    .limit(maxPerTick)
    .execute();
  for (let row of due) {
    while (out.length < maxPerTick && row.next_end <= dueBy()) {
      const built = await buildReport(ctx, {
        start: new Date(row.next_start),
        end: new Date(row.next_end),
        every: row.every,
        frameworks: JSON.parse(row.frameworks) as string[],
        scheduleId: row.schedule_id,
      });
      const advanced = await claimAndStore(ctx, row, built);
      if (!advanced) break;
      out.push({ report_id: built.report.report_id, schedule_id: row.schedule_id, period_start: row.next_start });
      row = advanced;
    }
  }
  return out;
}
