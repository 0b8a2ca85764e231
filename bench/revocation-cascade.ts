/**
 * The revocation cascade (CONTRACT section 5, SPEC limits: under one second): `POST /v1/grants/{id}/revoke` over
 * subtrees of 1k, 10k and 100k grants, events and audit entry included, on the embedded default (SQLite file, WAL,
 * commits fdatasynced by the store before answering) and on PostgreSQL; then, with two `aar serve` processes on one PostgreSQL, the time from the
 * revoke's answer (instance A) until instance B's authorize answers `deny` / `authority_revoked`. Every answer is
 * checked (counts, events, denials); PostgreSQL rows are skipped with a note when it is not reachable.
 */
import os from 'node:os';
import { testDialects } from '../packages/server/test/support/dialects.ts';
import type { Benchmark, BenchReport, Measurement } from './lib/bench-report.ts';
import { measureCascade, type CascadeSample } from './revocation-cascade/measure-cascade.ts';
import { measureCrossInstance } from './revocation-cascade/measure-cross-instance.ts';

/** subtree size -> samples (each sample is its own subtree; the fixture is not timed) */
export const CASCADE_PLAN: ReadonlyArray<readonly [number, number]> = [
  [1_000, 5],
  [10_000, 3],
  [100_000, 1],
];
export const CROSS_INSTANCE_ROUNDS = 30;

export function toMeasurement(group: string, name: string, samplesMs: readonly number[]): Measurement {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return {
    group,
    name,
    opsPerSecond: 1000 / mean,
    meanMs: mean,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    samples: sorted.length,
  };
}

export interface RevocationCascadeOptions {
  plan?: ReadonlyArray<readonly [number, number]>;
  crossInstanceRounds?: number;
}

export async function runRevocationCascade(options: RevocationCascadeOptions = {}): Promise<BenchReport> {
  const plan = options.plan ?? CASCADE_PLAN;
  const rounds = options.crossInstanceRounds ?? CROSS_INSTANCE_ROUNDS;
  const dialects = await testDialects();
  const measurements: Measurement[] = [];
  const notes = [
    `load average at start ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  ];
  for (const [size, samples] of plan) {
    for (const dialect of dialects) {
      const results: CascadeSample[] = await measureCascade(dialect, size, samples);
      const group = `revoke a ${size.toLocaleString('en-US')}-grant subtree (${dialect})`;
      measurements.push({
        ...toMeasurement(
          group,
          `${dialect}: insert ${size.toLocaleString('en-US')} rows in one transaction (floor)`,
          results.map((r) => r.floorMs),
        ),
        baseline: true,
      });
      measurements.push(
        toMeasurement(
          group,
          `${dialect}: service (call to commit)`,
          results.map((r) => r.serviceMs),
        ),
      );
      measurements.push(
        toMeasurement(
          group,
          `${dialect}: client (HTTP round trip)`,
          results.map((r) => r.wallMs),
        ),
      );
      if (dialect === 'sqlite') {
        measurements.push(
          toMeasurement(
            group,
            `${dialect}: CPU time of the call`,
            results.map((r) => r.cpuMs),
          ),
        );
      }
    }
  }
  if (dialects.includes('postgres')) {
    const latencies = await measureCrossInstance(rounds);
    measurements.push(
      toMeasurement(
        'revoke answered on A -> B denies',
        'B authorize after A revoke (2 aar serve, PostgreSQL)',
        latencies,
      ),
    );
    notes.push(`cross-instance: ${rounds} rounds, B denied \`authority_revoked\` on its first authorize every time`);
  } else {
    notes.push('PostgreSQL not reachable: its rows and the cross-instance row are skipped');
  }
  notes.push('each cascade revokes one event and one grant_revocations row per grant, one audit entry per revoke');
  notes.push(
    'floor (the baseline of each group, measured just before each cascade on the same store): as many rows as the ' +
      'cascade revokes grants, event-shaped (4 text columns, text primary key), inserted in ONE transaction by ' +
      'multi-row INSERTs of 500 rows with bound parameters, BEGIN to COMMIT; the cascade writes twice as many rows ' +
      '(one grant_revocations row and one event per grant) into indexed, guarded tables, plus its audit entry',
  );
  notes.push(
    'service = `elapsed_ms` of the answer (call to commit); CPU time = user + system of the process during the call ' +
      '(service and client, in one process; fsync waits excluded): on a shared machine, the wall time is the CPU ' +
      'time stretched by the load',
  );
  return {
    name: 'revocation-cascade',
    description: revocationCascade.description,
    measurements,
    notes,
  };
}

export const revocationCascade: Benchmark = {
  name: 'revocation-cascade',
  description:
    '`POST /v1/grants/{id}/revoke` over 1k/10k/100k-grant subtrees (events included), SQLite and PostgreSQL; time from a revoke answered by instance A until instance B denies.',
  run: () => runRevocationCascade(),
};
