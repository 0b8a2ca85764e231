/**
 * Two instances on one PostgreSQL schema (two runtimes in this process, each with its own connection pool, write
 * queue and signing key, as two `aar serve` processes have) generate the reports of one schedule at the same time:
 * every period gets exactly one report and one `ns.report.generated`, however the race goes (docs/reports.md
 * "Generation: once per period"). PostgreSQL only: SQLite has a single writer and a single instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateDueReports,
  REPORT_GRACE_MS,
  type GeneratedReport,
} from '../../src/services/reports/scheduled-reports.ts';
import { createApiCall } from '../support/api-call.ts';
import { testDialects } from '../support/dialects.ts';
import { mintToken } from '../support/opt-in.ts';
import { freshPgSchema } from '../support/pg-schema.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();
const HOUR = 3_600_000;

describe.skipIf(!dialects.includes('postgres'))('report generation by two instances on one PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof freshPgSchema>>;
  let a: TestRuntime;
  let b: TestRuntime;
  let token: string;
  let call: ReturnType<typeof createApiCall>;
  const clock = new SteppingClock();

  beforeAll(async () => {
    schema = await freshPgSchema();
    const options = { config: { databaseUrl: schema.url }, optIn: ['reports' as const], clock };
    a = await startTestRuntime(options);
    b = await startTestRuntime(options);
    const base = await a.app.listen({ host: '127.0.0.1', port: 0 });
    call = createApiCall(base, ADMIN_TOKEN);
    token = await mintToken(call, { role: 'admin', scopes: ['reports.read', 'reports.write'] });
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await schema?.drop();
  });

  /** Runs one instance's ticks until it finds nothing due twice in a row. */
  async function drain(rt: TestRuntime, perTick: number): Promise<GeneratedReport[]> {
    const mine: GeneratedReport[] = [];
    let idle = 0;
    while (idle < 2) {
      const made = await generateDueReports(rt.ctx, perTick);
      mine.push(...made);
      idle = made.length === 0 ? idle + 1 : 0;
    }
    return mine;
  }

  async function reportsOf(scheduleId: string) {
    return a.ctx.store.db
      .selectFrom('compliance_reports')
      .select(['report_id', 'period_start', 'period_end'])
      .where('schedule_id', '=', scheduleId)
      .orderBy('period_start')
      .execute();
  }

  it('twelve past hours, raced by both: one report and one event per hour, back to back', async () => {
    const startsAt = new Date(Math.floor(clock.now().getTime() / HOUR) * HOUR - 12 * HOUR);
    const created = await call(
      'POST',
      '/v1/reports/schedules',
      { every: 'hour', starts_at: startsAt.toISOString() },
      token,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.schedule_id as string;
    // hours that have ended (with the grace) by now
    const due = Math.floor((clock.now().getTime() - REPORT_GRACE_MS - startsAt.getTime()) / HOUR);
    expect(due).toBeGreaterThanOrEqual(11);

    const [fromA, fromB, fromA2, fromB2] = await Promise.all([drain(a, 2), drain(b, 2), drain(a, 1), drain(b, 3)]);
    const claimed = [...fromA!, ...fromB!, ...fromA2!, ...fromB2!];
    const rows = await reportsOf(id);
    expect(rows).toHaveLength(due);
    // what the instances say they stored is exactly what is stored: nobody stored a period twice
    expect(claimed.map((r) => r.report_id).sort()).toEqual(rows.map((r) => r.report_id).sort());
    rows.forEach((row, i) => {
      expect(row.period_start).toBe(new Date(startsAt.getTime() + i * HOUR).toISOString());
      expect(row.period_end).toBe(new Date(startsAt.getTime() + (i + 1) * HOUR).toISOString());
    });
    const events = await a.ctx.store.db
      .selectFrom('events')
      .select('subject_ref')
      .where('event_type', '=', 'ns.report.generated')
      .execute();
    expect(events.map((e) => e.subject_ref).sort()).toEqual(rows.map((r) => r.report_id).sort());
    const schedule = await call('GET', `/v1/reports/schedules/${id}`, undefined, token);
    expect(schedule.body.next_period.start).toBe(rows[rows.length - 1]!.period_end);
  });

  it('one due period, ten ticks at once on each instance: one report', async () => {
    const created = await call('POST', '/v1/reports/schedules', { every: 'PT2H' }, token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.schedule_id as string;
    clock.advance(3 * 3600);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => generateDueReports((i % 2 ? a : b).ctx)));
    const mine = results.flat().filter((r) => r.schedule_id === id);
    const rows = await reportsOf(id);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(mine.map((r) => r.report_id).sort()).toEqual(rows.map((r) => r.report_id).sort());
    // never two reports of one period
    expect(new Set(rows.map((r) => r.period_start)).size).toBe(rows.length);
  });
});
