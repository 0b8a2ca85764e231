/**
 * The audit chain (issue 5), in this process on the embedded default (SQLite file, WAL, synchronous FULL):
 * - audit appends per second with group commit vs one transaction (one fsync) per append, in the same run;
 * - `GET /v1/audit/verify` over a log of AAR_BENCH_AUDIT_ENTRIES entries (default 1,000,000), filled first through
 *   the appender's bulk path; the heap is sampled during the call.
 * See bench/README.md.
 */
import type { Benchmark, BenchReport, Measurement } from './lib/bench-report.ts';
import { BENCH_TOKEN, openBenchRuntime } from './audit-chain/bench-runtime.ts';
import { fillLog, sampleVerifyHeap, timeVerifyRoute } from './audit-chain/fill-and-verify.ts';
import { appendGroupCommitted, appendOneTransactionEach, type AppendRun } from './audit-chain/measure-appends.ts';

const SEQUENTIAL_APPENDS = Number(process.env.AAR_BENCH_AUDIT_SEQUENTIAL ?? 1000);
const GROUP_APPENDS = Number(process.env.AAR_BENCH_AUDIT_GROUP ?? 20_000);
const VERIFY_ENTRIES = Number(process.env.AAR_BENCH_AUDIT_ENTRIES ?? 1_000_000);

function rateMeasurement(group: string, name: string, run: AppendRun, baseline = false): Measurement {
  const opsPerSecond = (run.appends * 1000) / run.ms;
  return {
    group,
    name,
    opsPerSecond,
    meanMs: 1000 / opsPerSecond,
    samples: run.appends,
    ...(baseline ? { baseline } : {}),
  };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

export const auditChain: Benchmark = {
  name: 'audit-chain',
  description:
    'Audit chain on SQLite (WAL, synchronous FULL): appends/s with group commit vs one transaction per append (ratio), and `GET /v1/audit/verify` over a large log.',
  async run(): Promise<BenchReport> {
    const notes: string[] = [];
    const measurements: Measurement[] = [];
    const appends = await openBenchRuntime();
    try {
      await appendGroupCommitted(appends.ctx, 500); // warm-up: JIT, file growth
      const sequential = await appendOneTransactionEach(appends.ctx, SEQUENTIAL_APPENDS);
      const grouped = await appendGroupCommitted(appends.ctx, GROUP_APPENDS);
      measurements.push(
        rateMeasurement('audit appends', 'one transaction per append', sequential, true),
        rateMeasurement('audit appends', 'group commit (write queue)', grouped),
      );
      notes.push(
        `appends: ${sequential.appends} one per transaction (${sequential.batches} commits), then ${grouped.appends} queued at once (${grouped.batches} commits, ≤ 512 per transaction)`,
      );
    } finally {
      await appends.close();
    }

    const big = await openBenchRuntime();
    try {
      const fill = await fillLog(big.ctx, VERIFY_ENTRIES);
      const verify = await timeVerifyRoute(big.app, BENCH_TOKEN);
      const heap = await sampleVerifyHeap(big.ctx);
      if (!verify.body.valid || verify.body.checked !== verify.body.size) {
        throw new Error(`the filled log does not verify: ${JSON.stringify(verify.body)}`);
      }
      const group = `verify ${verify.body.size.toLocaleString('en-US')} entries`;
      measurements.push({
        group,
        name: 'GET /v1/audit/verify (chain + tree + nodes + checkpoint)',
        opsPerSecond: 1000 / verify.ms,
        meanMs: verify.ms,
        samples: 1,
      });
      notes.push(
        `verify: ${verify.body.size.toLocaleString('en-US')} entries in ${(verify.ms / 1000).toFixed(1)} s = ${Math.round((verify.body.size * 1000) / verify.ms).toLocaleString('en-US')} entries/s; pages of 10,000 entries; heap ${mib(heap.heapBefore)} before, at most ${mib(heap.peakHeap)} after any page (a second run, ${(heap.ms / 1000).toFixed(1)} s)`,
        `fill: ${fill.entries.toLocaleString('en-US')} entries through AuditAppender.appendMany in units of 25,000 in ${(fill.ms / 1000).toFixed(1)} s (${Math.round((fill.entries * 1000) / fill.ms).toLocaleString('en-US')} entries/s, checkpoint included)`,
      );
    } finally {
      await big.close();
    }
    return { name: auditChain.name, description: auditChain.description, measurements, notes };
  },
};
