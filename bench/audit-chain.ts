/**
 * The audit chain (issue 5), in this process on the embedded default (SQLite file, WAL; commits made durable by the store's own fdatasync of the log, store/wal-barrier.ts):
 * - audit appends per second with group commit vs one transaction (one fsync) per append, in the same run;
 * - `GET /v1/audit/verify` over a log of AAR_BENCH_AUDIT_ENTRIES entries (default 1,000,000), written first in bulk,
 *   beside two floors of the same run (reading every entry row; SHA-256 of every entry), with heap and RSS sampled;
 *   then `?from=verified` after AAR_BENCH_AUDIT_INCREMENTAL more entries (default 10,000).
 * See bench/README.md.
 */
import type { Benchmark, BenchReport, Measurement } from './lib/bench-report.ts';
import { BENCH_TOKEN, openBenchRuntime } from './audit-chain/bench-runtime.ts';
import { cpus, loadavg } from 'node:os';
import {
  fillLog,
  hashEveryEntry,
  readEveryRow,
  sampleVerifyMemory,
  timeVerifyRoute,
  verifyInCappedProcess,
} from './audit-chain/fill-and-verify.ts';
import { appendGroupCommitted, appendOneTransactionEach, type AppendRun } from './audit-chain/measure-appends.ts';

const SEQUENTIAL_APPENDS = Number(process.env.AAR_BENCH_AUDIT_SEQUENTIAL ?? 1000);
const GROUP_APPENDS = Number(process.env.AAR_BENCH_AUDIT_GROUP ?? 20_000);
const VERIFY_ENTRIES = Number(process.env.AAR_BENCH_AUDIT_ENTRIES ?? 1_000_000);
const INCREMENTAL_ENTRIES = Number(process.env.AAR_BENCH_AUDIT_INCREMENTAL ?? 10_000);
/** the V8 heap of the child process that verifies the log again: far below what holding the log would take */
const CAPPED_HEAP_MIB = 128;

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
    'Audit chain on SQLite (WAL, commits fdatasynced by the store before a unit resolves): appends/s with group commit vs one transaction per append (ratio), and `GET /v1/audit/verify` over a large log.',
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
      const read = await readEveryRow(big.ctx);
      const hash = await hashEveryEntry(big.ctx);
      const verify = await timeVerifyRoute(big.app, BENCH_TOKEN);
      if (!verify.body.valid || verify.body.checked !== verify.body.size) {
        throw new Error(`the filled log does not verify: ${JSON.stringify(verify.body)}`);
      }
      const memory = await sampleVerifyMemory(big.ctx);
      const capped = await verifyInCappedProcess(big.dataDir, CAPPED_HEAP_MIB);
      if (!capped.valid) throw new Error(`the capped verify found the log invalid: ${JSON.stringify(capped)}`);
      await fillLog(big.ctx, INCREMENTAL_ENTRIES);
      const incremental = await timeVerifyRoute(big.app, BENCH_TOKEN, '?from=verified');
      if (!incremental.body.valid || incremental.body.from !== verify.body.size) {
        throw new Error(`the incremental run did not resume from the mark: ${JSON.stringify(incremental.body)}`);
      }
      const size = verify.body.size.toLocaleString('en-US');
      const group = `verify ${size} entries`;
      const one = (name: string, ms: number, baseline = false): Measurement => ({
        group,
        name,
        opsPerSecond: 1000 / ms,
        meanMs: ms,
        samples: 1,
        ...(baseline ? { baseline } : {}),
      });
      measurements.push(
        one('read every entry row (floor: pages of 10,000, nothing computed)', read.ms, true),
        one('SHA-256 of every entry, node:crypto, in memory (floor)', hash.ms),
        one('GET /v1/audit/verify (chain + tree + nodes + records + checkpoints)', verify.ms),
        one(
          `GET /v1/audit/verify?from=verified (${INCREMENTAL_ENTRIES.toLocaleString('en-US')} new entries)`,
          incremental.ms,
        ),
      );
      const perSecond = (n: number, ms: number) => Math.round((n * 1000) / ms).toLocaleString('en-US');
      notes.push(
        `verify: ${size} entries in ${(verify.ms / 1000).toFixed(2)} s wall, ${(verify.cpuMs / 1000).toFixed(2)} s CPU (${perSecond(verify.body.size, verify.ms)} entries/s); floors in the same run: reading the rows ${(read.ms / 1000).toFixed(2)} s wall / ${(read.cpuMs / 1000).toFixed(2)} s CPU (${(read.bytes / 1024 / 1024).toFixed(0)} MiB of entry text), SHA-256 of the entries ${(hash.ms / 1000).toFixed(2)} s`,
        `memory (a second full run, sampled after every page of 10,000 entries): heap ${mib(memory.heapBefore)} before, at most ${mib(memory.peakHeap)}; RSS ${mib(memory.rssBefore)} before, at most ${mib(memory.peakRss)} (${(memory.ms / 1000).toFixed(2)} s)`,
        `bounded memory: the same log verified in a child process capped at ${capped.heapMiB} MiB of V8 heap: valid, heap at most ${mib(capped.peakHeap)}, RSS at most ${mib(capped.peakRss)} (${(capped.ms / 1000).toFixed(1)} s, start-up included)`,
        `incremental: ${INCREMENTAL_ENTRIES.toLocaleString('en-US')} entries appended after the mark of the full run, verified from it in ${incremental.ms.toFixed(0)} ms wall, ${incremental.cpuMs.toFixed(0)} ms CPU`,
        `fill: ${fill.entries.toLocaleString('en-US')} entries written in bulk (bench/audit-chain/seed-log.ts: the appender's rows, multi-row INSERTs) in ${(fill.ms / 1000).toFixed(1)} s, checkpoint included`,
        `load average at the end: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' / ')} on ${cpus().length} cores: wall times above the core count are inflated; CPU times less so`,
      );
    } finally {
      await big.close();
    }
    return { name: auditChain.name, description: auditChain.description, measurements, notes };
  },
};
