/**
 * Fills the log with many entries through the appender's bulk path (big units, multi-row inserts), then times
 * `GET /v1/audit/verify` over all of them, and samples the heap during the same work, to show the verifier streams.
 */
import type { AppContext } from '../../packages/server/src/app-context.ts';
import type { FastifyInstance } from 'fastify';
import { signCheckpoint } from '../../packages/server/src/audit/checkpoints.ts';
import { verifyAuditLog } from '../../packages/server/src/audit/verify-audit-log.ts';
import { auditOf } from '../../packages/server/src/store/write-queue.ts';

export interface FillRun {
  entries: number;
  ms: number;
}

export interface VerifyRun {
  ms: number;
  body: { valid: boolean; size: number; checked: number; failure?: string };
}

export interface HeapRun {
  ms: number;
  heapBefore: number;
  /** highest heapUsed seen after any page, bytes */
  peakHeap: number;
}

export async function fillLog(ctx: AppContext, entries: number, perUnit = 25_000): Promise<FillRun> {
  const started = performance.now();
  const occurredAt = new Date().toISOString();
  for (let done = 0; done < entries; done += perUnit) {
    const count = Math.min(perUnit, entries - done);
    await ctx.writer.run(async (trx) =>
      auditOf(trx).appendMany(
        Array.from({ length: count }, (_, j) => ({
          kind: 'bench.fill',
          subject_ref: `bench:${done + j}`,
          record: { i: done + j },
          occurred_at: occurredAt,
        })),
      ),
    );
  }
  await signCheckpoint(ctx);
  return { entries, ms: performance.now() - started };
}

/** The route, timed as a client sees it (in-process inject: no socket). */
export async function timeVerifyRoute(app: FastifyInstance, token: string): Promise<VerifyRun> {
  const started = performance.now();
  const res = await app.inject({
    method: 'GET',
    url: '/v1/audit/verify',
    headers: { authorization: `Bearer ${token}` },
  });
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`/v1/audit/verify answered ${res.statusCode}: ${res.body}`);
  return { ms, body: res.json() };
}

/**
 * The route's work again, sampling the heap after every page: the loop never yields to timers (the SQLite driver is
 * synchronous), so a setInterval sampler would see nothing.
 */
export async function sampleVerifyHeap(ctx: AppContext): Promise<HeapRun> {
  const heapBefore = process.memoryUsage().heapUsed;
  let peakHeap = heapBefore;
  const started = performance.now();
  await verifyAuditLog(ctx, {
    onPage: () => {
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    },
  });
  return { ms: performance.now() - started, heapBefore, peakHeap };
}
