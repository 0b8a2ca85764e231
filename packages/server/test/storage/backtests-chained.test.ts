/**
 * Backtests are inside the chain (issue 27): on each database, an ended backtest's row is what its chained
 * `ns.backtest.completed` says (pack, version, state, counts, and by digest its params and its report or error), so an
 * edit made with the write-once guards out of the way (an attacker with SQL access, not the service key) is named by
 * `GET /v1/audit/verify` (table, record, column): a report edited to make a pack look harmless, a row set to `done`
 * without its event, an ended one set back to `running`, a deleted one. A `running` backtest has no event yet and is
 * no finding.
 */
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '@aar/core';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOfCanonical } from '../../src/audit/audit-entry.ts';
import { scheduleBacktest } from '../../src/services/backtests/backtest-runner.ts';
import { emptyReport } from '../../src/services/backtests/backtest-report.ts';
import type { Database } from '../../src/store/index.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;
const RANGE = { from: '2000-01-01T00:00:00.000Z', until: '2100-01-01T00:00:00.000Z' };

describe.each(dialects)('backtests against their chained events on %s', (dialect) => {
  let rt: TestRuntime;
  let world: World;
  const ids = { done: '', failed: '', running: '' };
  const db = (): Kysely<Database> => rt.ctx.store.db;
  const verify = async () => (await world.call('GET', '/v1/audit/verify')).body;

  /** A backtest row as the service writes it when it starts (start-backtest.ts), without queueing its job. */
  async function insertRunning(version: string): Promise<string> {
    const id = `ns:backtest:${randomUUID()}`;
    const now = new Date().toISOString();
    await rt.ctx.writer.run((trx) =>
      trx
        .insertInto('backtests')
        .values({
          backtest_id: id,
          pack_name: 'velocity',
          version,
          params: canonicalJson({ ...RANGE, requested_by: null }),
          state: 'running',
          done_count: 0,
          total_count: 3,
          result: JSON.stringify({ running: { after_seq: 0, through_seq: 1_000_000 }, report: emptyReport() }),
          error: null,
          created_at: now,
          updated_at: now,
        })
        .execute(),
    );
    return id;
  }

  async function stateOf(id: string): Promise<string> {
    for (let i = 0; i < 400; i++) {
      const row = await db().selectFrom('backtests').select('state').where('backtest_id', '=', id).executeTakeFirst();
      if (row && row.state !== 'running') return row.state;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`backtest ${id} still running`);
  }

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    for (const amount of [10, 20, 30]) await world.authorize(world.purchase(amount));
    // done: through the API, over the three decisions
    ids.done = (await world.must('POST', '/v1/rule-packs/velocity/versions/1.0.0/backtests', RANGE)).backtest_id;
    expect(await stateOf(ids.done)).toBe('done');
    // failed: a backtest whose pack version is gone by the time its job runs (the runner's own failure path)
    ids.failed = await insertRunning('9.9.9');
    scheduleBacktest(rt.ctx, ids.failed);
    expect(await stateOf(ids.failed)).toBe('failed');
    // running: its job not moving it (no event yet)
    ids.running = await insertRunning('1.0.0');
    expect(await verify()).toMatchObject({ valid: true });
  }, 120_000);
  afterAll(async () => rt?.close());

  it('the completed events restate the rows and commit to their bytes', async () => {
    const events = (await world.must('GET', '/v1/events?event_type=ns.backtest.completed&limit=50')).items as Array<{
      subject_ref: string;
      data: Record<string, unknown>;
    }>;
    expect(events.map((e) => e.subject_ref).sort()).toEqual([ids.done, ids.failed].sort());
    const rows = await db().selectFrom('backtests').selectAll().execute();
    const row = (id: string) => rows.find((r) => r.backtest_id === id)!;
    const done = events.find((e) => e.subject_ref === ids.done)!.data;
    expect(done).toEqual({
      pack_id: 'ns:rule_pack:velocity',
      version: '1.0.0',
      state: 'done',
      params_digest: digestOfCanonical(row(ids.done).params),
      decisions: 3,
      total: 3,
      changed: expect.any(Number),
      result_digest: digestOfCanonical(row(ids.done).result!),
    });
    expect(JSON.parse(row(ids.done).params)).toMatchObject(RANGE);
    const failed = events.find((e) => e.subject_ref === ids.failed)!.data;
    expect(failed).toEqual({
      pack_id: 'ns:rule_pack:velocity',
      version: '9.9.9',
      state: 'failed',
      params_digest: digestOfCanonical(row(ids.failed).params),
      decisions: 0,
      total: 3,
      changed: 0,
      error_digest: digestOfCanonical(row(ids.failed).error!),
    });
    expect(row(ids.failed).error).toMatch(/is gone/);
    expect(row(ids.failed).result).toBeNull();
  });

  /** Edits one column of one backtest with the guards dropped, checks what verify says, then puts it back. */
  async function tampered(
    id: string,
    column: 'pack_name' | 'version' | 'params' | 'state' | 'done_count' | 'total_count' | 'result' | 'error',
    change: (value: unknown) => unknown,
    expected: { failure: string; detail: string },
  ): Promise<void> {
    const before = (await db()
      .selectFrom('backtests')
      .select(column)
      .where('backtest_id', '=', id)
      .executeTakeFirst())![column];
    const set = (value: unknown) =>
      bypassingGuards(db(), dialect, async (trx) => {
        await sql`update backtests set ${sql.ref(column)} = ${value} where backtest_id = ${id}`.execute(trx);
      });
    const after = change(before);
    expect(after).not.toEqual(before);
    await set(after);
    try {
      expect(await verify(), `${column}`).toMatchObject({
        valid: false,
        record: { table: 'backtests', id },
        ...expected,
      });
    } finally {
      await set(before);
    }
    expect(await verify(), `${column} restored`).toMatchObject({ valid: true });
  }

  it('names an edited report', async () => {
    await tampered(
      ids.done,
      'result',
      (text) => {
        const report = JSON.parse(String(text)) as { changed: number };
        return canonicalJson({ ...report, changed: report.changed + 1 });
      },
      { failure: 'record_digest_mismatch', detail: 'result' },
    );
  });

  it('names edited params, pack, version and counts of a done backtest', async () => {
    await tampered(
      ids.done,
      'params',
      (text) => canonicalJson({ ...(JSON.parse(String(text)) as object), from: '2099-01-01T00:00:00.000Z' }),
      { failure: 'record_digest_mismatch', detail: 'params' },
    );
    await tampered(ids.done, 'pack_name', () => 'mcc_caps', { failure: 'record_mismatch', detail: 'pack_name' });
    await tampered(ids.done, 'version', () => '1.0.1', { failure: 'record_mismatch', detail: 'version' });
    await tampered(ids.done, 'done_count', (n) => Number(n) - 1, { failure: 'record_mismatch', detail: 'done_count' });
    await tampered(ids.done, 'total_count', (n) => Number(n) + 5, {
      failure: 'record_mismatch',
      detail: 'total_count',
    });
    await tampered(ids.done, 'error', () => 'boom', { failure: 'record_mismatch', detail: 'error' });
  });

  it("names a failed backtest's edited error, or one passed off as done", async () => {
    await tampered(ids.failed, 'error', (text) => `${String(text)}.`, {
      failure: 'record_digest_mismatch',
      detail: 'error',
    });
    await tampered(ids.failed, 'state', () => 'done', { failure: 'record_mismatch', detail: 'state' });
  });

  it('names a running backtest set to done without its event, and a done one set back to running', async () => {
    await tampered(ids.running, 'state', () => 'done', { failure: 'record_unanchored', detail: 'state' });
    await tampered(ids.done, 'state', () => 'running', { failure: 'record_mismatch', detail: 'state' });
  });

  it('names a deleted backtest by its completed event', async () => {
    const row = (await db()
      .selectFrom('backtests')
      .selectAll()
      .where('backtest_id', '=', ids.done)
      .executeTakeFirst())!;
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx.deleteFrom('backtests').where('backtest_id', '=', ids.done).execute();
    });
    try {
      const answer = await verify();
      expect(answer).toMatchObject({
        valid: false,
        failure: 'record_missing',
        record: { table: 'backtests', id: ids.done },
        detail: 'backtest_id',
      });
      expect(answer.first_invalid_index).toBeTypeOf('number');
    } finally {
      await bypassingGuards(db(), dialect, async (trx) => {
        const columns = Object.keys(row);
        const values = sql.join(columns.map((c) => sql`${(row as Record<string, unknown>)[c]}`));
        const overriding = dialect === 'postgres' ? sql`overriding system value` : sql``;
        await sql`insert into backtests (${sql.join(columns.map((c) => sql.ref(c)))}) ${overriding}
          values (${values})`.execute(trx);
      });
    }
    expect(await verify()).toMatchObject({ valid: true });
  });
});
