/**
 * Load results as the runner's measurements (bench/lib/bench-report.ts), whose ratio is baseline mean ÷ row mean.
 * - Throughput rows: `opsPerSecond` is the 2xx answers per second and `mean` its reciprocal (wall time per answered
 *   request with all connections busy), so the ratio is the throughput ratio; p50/p99 are per-request latencies.
 *   `rme` is that of the per-second answer counts.
 * - Fixed-rate rows: `mean`, p50, p99 and `rme` are per-request latency (ops/s = 1000 / mean, as in every table of
 *   the runner, not the rate); the achieved rate is in the row's name.
 */
import type { Measurement } from '../lib/bench-report.ts';
import type { LoadResult } from './run-load.ts';
import { summarize } from './run-load.ts';

export function throughputMeasurement(group: string, name: string, result: LoadResult, baseline = false): Measurement {
  const perSecond = summarize(result.okPerWholeSecond);
  return {
    group,
    name,
    opsPerSecond: result.okPerSecond,
    meanMs: 1000 / result.okPerSecond,
    p50Ms: result.latency.p50Ms,
    p99Ms: result.latency.p99Ms,
    ...(perSecond.count > 1 ? { rmePercent: perSecond.rmePercent } : {}),
    samples: result.ok,
    ...(baseline ? { baseline } : {}),
  };
}

/**
 * The rate a fixed-rate run achieved. autocannon's rate is a quota per one-second window, and a run that kept up
 * ends early in its last window, so answers ÷ elapsed overstates it; a run that kept up achieved the target.
 */
export function achievedRate(result: LoadResult, target: number): number {
  return Math.min(target, result.okPerSecond);
}

export function fixedRateMeasurement(
  group: string,
  name: string,
  result: LoadResult,
  target: number,
  baseline = false,
): Measurement {
  const rate = Math.round(achievedRate(result, target));
  const sustained = result.okPerSecond >= target;
  return {
    group,
    name: `${name} (${sustained ? `sustained ${rate}` : `only ${rate} of ${target}`} req/s)`,
    opsPerSecond: 1000 / result.latency.meanMs,
    meanMs: result.latency.meanMs,
    p50Ms: result.latency.p50Ms,
    p99Ms: result.latency.p99Ms,
    rmePercent: result.latency.rmePercent,
    samples: result.ok,
    ...(baseline ? { baseline } : {}),
  };
}
