/**
 * The audit-chain benchmark's plumbing, once through with small numbers (no timing assertions): both append modes
 * write what they claim (one commit per append vs fewer commits), the bulk fill makes a log that verifies through
 * the route, and the heap sampler sees every page.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BENCH_TOKEN, openBenchRuntime, type BenchRuntime } from './audit-chain/bench-runtime.ts';
import { fillLog, sampleVerifyHeap, timeVerifyRoute } from './audit-chain/fill-and-verify.ts';
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

  it('fills a log in bulk that verifies, in pages', async () => {
    await fillLog(rt.ctx, 25_500, 10_000);
    const verify = await timeVerifyRoute(rt.app, BENCH_TOKEN);
    expect(verify.body).toMatchObject({ valid: true, size: 25_501, checked: 25_501 });
    const heap = await sampleVerifyHeap(rt.ctx);
    expect(heap.peakHeap).toBeGreaterThan(0);
  });
});
