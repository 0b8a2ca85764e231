/**
 * Audit appends per second, two ways in the same run: one transaction per append (each unit awaited before the next
 * is queued, so every batch holds one append: one commit, one fsync each) and group commit (all units queued at
 * once; the write queue commits up to 512 per transaction). Both append the same entries through the same appender.
 */
import type { AppContext } from '../../packages/server/src/app-context.ts';
import { auditOf } from '../../packages/server/src/store/write-queue.ts';

export interface AppendRun {
  appends: number;
  ms: number;
  batches: number;
}

function appendOne(ctx: AppContext, i: number): Promise<unknown> {
  return ctx.writer.run(async (trx) =>
    auditOf(trx).append({
      kind: 'bench.append',
      subject_ref: `bench:${i}`,
      record: { i, note: 'one audit append' },
      occurred_at: new Date().toISOString(),
    }),
  );
}

export async function appendOneTransactionEach(ctx: AppContext, appends: number): Promise<AppendRun> {
  const batches = ctx.writer.batches;
  const started = performance.now();
  for (let i = 0; i < appends; i++) await appendOne(ctx, i);
  return { appends, ms: performance.now() - started, batches: ctx.writer.batches - batches };
}

export async function appendGroupCommitted(ctx: AppContext, appends: number): Promise<AppendRun> {
  const batches = ctx.writer.batches;
  const started = performance.now();
  await Promise.all(Array.from({ length: appends }, (_, i) => appendOne(ctx, i)));
  return { appends, ms: performance.now() - started, batches: ctx.writer.batches - batches };
}
