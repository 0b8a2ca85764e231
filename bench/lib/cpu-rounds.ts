/**
 * Closed-loop rounds against one `aar serve` child, measured by the server's own CPU time (/proc): what the AuthZEN
 * and mandate benchmarks compare against a plain authorize in the same run. Every answer goes through `check`, which
 * returns how many decisions it held (1, or a batch's size) or throws: a benchmark never counts a refusal as work.
 */
import { readProcessCpuMs } from '../authorize-http/process-cpu.ts';
import type { SignedRequest } from '../authorize-http/request-pool.ts';
import type { ChildServer } from '../authorize-http/spawn-child.ts';
import type { Measurement } from './bench-report.ts';

export interface Round {
  cpuMs: number;
  wallMs: number;
  decisions: number;
  latenciesMs: number[];
}

export type Check = (status: number, body: unknown) => number;

export function failCheck(status: number, body: unknown): never {
  throw new Error(`an answer was not an allow: ${status} ${JSON.stringify(body).slice(0, 400)}`);
}

export const allowAuthorize: Check = (status, body) =>
  status === 200 && (body as { decision?: string }).decision === 'allow_with_constraints' ? 1 : failCheck(status, body);

export async function runRound(
  server: ChildServer,
  requests: readonly SignedRequest[],
  connections: number,
  check: Check,
): Promise<Round> {
  const latenciesMs: number[] = [];
  let next = 0;
  let decisions = 0;
  const cpuBefore = readProcessCpuMs(server.pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (;;) {
        const request = requests[next++];
        if (!request) return;
        const sent = performance.now();
        const res = await fetch(`${server.base}${request.path}`, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
        });
        const body = (await res.json()) as unknown;
        latenciesMs.push(performance.now() - sent);
        decisions += check(res.status, body);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const cpuAfter = readProcessCpuMs(server.pid);
  if (cpuBefore === undefined || cpuAfter === undefined) throw new Error('no CPU reading from /proc (Linux only)');
  return { cpuMs: cpuAfter - cpuBefore, wallMs, decisions, latenciesMs };
}

export function pooled(rounds: readonly Round[]) {
  const cpu = rounds.reduce((n, r) => n + r.cpuMs, 0);
  const decisions = rounds.reduce((n, r) => n + r.decisions, 0);
  const wall = rounds.reduce((n, r) => n + r.wallMs, 0);
  const latencies = rounds.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    cpuMsPerDecision: cpu / decisions,
    perRound: rounds.map((r) => r.cpuMs / r.decisions),
    decisions,
    decisionsPerSecond: (decisions * 1000) / wall,
    p50: at(0.5),
    p99: at(0.99),
  };
}

/** CPU ms per decision pooled over the rounds; the spread is a 95 % interval over the rounds' own figures. */
export function cpuMeasurement(group: string, name: string, rounds: readonly Round[], baseline: boolean): Measurement {
  const p = pooled(rounds);
  const mean = p.perRound.reduce((a, b) => a + b, 0) / p.perRound.length;
  const sd = Math.sqrt(p.perRound.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, p.perRound.length - 1));
  return {
    group,
    name,
    meanMs: p.cpuMsPerDecision,
    opsPerSecond: 1000 / p.cpuMsPerDecision,
    rmePercent: p.perRound.length > 1 ? (100 * 1.96 * sd) / Math.sqrt(p.perRound.length) / mean : 0,
    samples: p.decisions,
    ...(baseline ? { baseline } : {}),
  };
}

export function rateMeasurement(group: string, name: string, rounds: readonly Round[], baseline: boolean): Measurement {
  const p = pooled(rounds);
  return {
    group,
    name,
    meanMs: 1000 / p.decisionsPerSecond,
    opsPerSecond: p.decisionsPerSecond,
    p50Ms: p.p50,
    p99Ms: p.p99,
    samples: p.decisions,
    ...(baseline ? { baseline } : {}),
  };
}
