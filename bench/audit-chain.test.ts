/**
 * The audit-chain benchmark's plumbing, once through with small numbers (no timing assertions): both append modes
 * write what they claim (one commit per append vs fewer commits), the bulk fill makes a log that verifies through
 * the route (full, then from its verification mark), and the memory sampler sees every page.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BENCH_TOKEN, openBenchRuntime, type BenchRuntime } from './audit-chain/bench-runtime.ts';
import {
  fillLog,
  hashEveryEntry,
  readEveryRow,
  sampleVerifyMemory,
  timeVerifyRoute,
  verifyInCappedProcess,
} from './audit-chain/fill-and-verify.ts';
import { appendGroupCommitted, appendOneTransactionEach } from './audit-chain/measure-appends.ts';

describe('audit-chain benchmark', () => {
  let rt: BenchRuntime;
  beforeEach(async () => {
    rt = await openBenchRuntime();
  });
  afterEach(async () => rt?.close());

  it('appends one transaction each, then group-committed', async () => {
    const one = await appendOneTransactionEach(rt.ctx, 20);
    expect(one).toMatchObject({ appends: 20, batches: 20 });
    const grouped = await appendGroupCommitted(rt.ctx, 600);
    expect(grouped.appends).toBe(600);
    expect(grouped.batches).toBeLessThanOrEqual(3);
    const size = (await rt.ctx.store.db.selectFrom('audit_state').select('size').executeTakeFirstOrThrow()).size;
    expect(Number(size)).toBe(1 + 20 + 600);
  });

  it('fills a log in bulk that verifies, in pages, then incrementally', async () => {
    await fillLog(rt.ctx, 25_500);
    const verify = await timeVerifyRoute(rt.app, BENCH_TOKEN);
    expect(verify.body).toMatchObject({ valid: true, size: 25_501, checked: 25_501, from: 0 });
    const memory = await sampleVerifyMemory(rt.ctx);
    expect(memory.peakRss).toBeGreaterThan(0);
    expect(await readEveryRow(rt.ctx)).toMatchObject({ rows: 25_501 });
    expect(await hashEveryEntry(rt.ctx)).toMatchObject({ rows: 25_501 });
    const capped = await verifyInCappedProcess(rt.dataDir, 128);
    expect(capped).toMatchObject({ valid: true, size: 25_501 });
    await fillLog(rt.ctx, 300);
    const incremental = await timeVerifyRoute(rt.app, BENCH_TOKEN, '?from=verified');
    expect(incremental.body).toMatchObject({ valid: true, from: 25_501, size: 25_801, checked: 25_801 });
  });
});
