/**
 * The rule-packs rounds as the runner's measurements and notes. Per variant, two groups:
 * - CPU per authorize: `mean` is the server's CPU milliseconds per allowed decision, pooled over the group's rounds
 *   (CPU of all rounds ÷ allows of all rounds), `ops/s` its reciprocal (authorizes per CPU-second), `rme` the spread
 *   of the per-round values; the runner's `vs baseline` is then CPU(0 rules) ÷ CPU(N rules), below 1 when rules cost.
 *   The notes give the issue's ratio the other way up: CPU(N rules) ÷ CPU(0 rules), pooled and per pair of rounds.
 * - throughput: 2xx answers per second over the group's rounds (closed loop), p50/p99 latency of all its answers.
 */
import type { Measurement } from '../lib/bench-report.ts';
import { formatDuration } from '../lib/format-numbers.ts';
import { summarize } from '../authorize-http/run-load.ts';
import type { RuleCount } from './rule-switch.ts';
import type { VariantRuns } from './run-variant.ts';

export const VARIANT_NAMES = {
  request: 'request and merchant facts',
  facts: 'counters and local time too',
} as const;

/** issue 27: 50 active rules add at most this much CPU per authorize */
export const GOAL_RATIO = 1.1;

interface Pooled {
  rules: RuleCount;
  cpuMsPerRequest: number;
  perRound: number[];
  allowed: number;
  okPerSecond: number;
  latencies: number[];
  recordBytes: number | undefined;
}

function pool(runs: VariantRuns, rules: RuleCount): Pooled {
  const rounds = runs.rounds.filter((r) => r.rules === rules).map((r) => r.run);
  if (rounds.some((r) => r.cpuMs === undefined)) throw new Error('no CPU reading from /proc (Linux only)');
  const cpu = rounds.reduce((n, r) => n + r.cpuMs!, 0);
  const allowed = rounds.reduce((n, r) => n + r.allowed, 0);
  const ok = rounds.reduce((n, r) => n + r.result.ok, 0);
  const seconds = rounds.reduce((n, r) => n + r.result.elapsedSeconds, 0);
  return {
    rules,
    cpuMsPerRequest: cpu / allowed,
    perRound: rounds.map((r) => r.cpuMs! / r.allowed),
    allowed,
    okPerSecond: ok / seconds,
    latencies: rounds.flatMap((r) => r.result.raw.latenciesMs),
    recordBytes: rounds.find((r) => r.recordBytes !== undefined)?.recordBytes,
  };
}

const LABEL: Record<RuleCount, string> = { 0: '0 rules', 10: '10 rules (1 pack)', 50: '50 rules (5 packs)' };

export function variantMeasurements(runs: VariantRuns): Measurement[] {
  const name = VARIANT_NAMES[runs.variant];
  return ([0, 10, 50] as const).flatMap((rules) => {
    if (!runs.rounds.some((r) => r.rules === rules)) return [];
    const p = pool(runs, rules);
    const spread = summarize(p.perRound);
    const latency = summarize(p.latencies);
    return [
      {
        group: `${name}: server CPU per authorize`,
        name: LABEL[rules],
        opsPerSecond: (1 / p.cpuMsPerRequest) * 1000,
        meanMs: p.cpuMsPerRequest,
        ...(spread.count > 1 ? { rmePercent: spread.rmePercent } : {}),
        samples: p.allowed,
        ...(rules === 0 ? { baseline: true } : {}),
      },
      {
        group: `${name}: throughput, closed loop`,
        name: LABEL[rules],
        opsPerSecond: p.okPerSecond,
        meanMs: 1000 / p.okPerSecond,
        p50Ms: latency.p50Ms,
        p99Ms: latency.p99Ms,
        samples: p.latencies.length,
        ...(rules === 0 ? { baseline: true } : {}),
      },
    ];
  });
}

const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;

/** The issue's figure per variant: CPU with N rules ÷ CPU with 0, pooled, per round pair, against the goal. */
export function variantNotes(runs: VariantRuns): string[] {
  const name = VARIANT_NAMES[runs.variant];
  const perRound = runs.rounds.map((r) => `${r.rules}: ${formatDuration(r.run.cpuMs! / r.run.allowed)}`).join(', ');
  if (!([0, 10, 50] as const).every((rules) => runs.rounds.some((r) => r.rules === rules))) {
    return [`${name}: per round, in order (rules: CPU per authorize): ${perRound}`];
  }
  const [zero, ten, fifty] = ([0, 10, 50] as const).map((rules) => pool(runs, rules)) as [Pooled, Pooled, Pooled];
  const ratio10 = ten.cpuMsPerRequest / zero.cpuMsPerRequest;
  const ratio50 = fifty.cpuMsPerRequest / zero.cpuMsPerRequest;
  const verdict = ratio50 <= GOAL_RATIO ? 'within' : 'ABOVE';
  const notes = [
    `${name}: CPU per authorize 0 / 10 / 50 rules ${formatDuration(zero.cpuMsPerRequest)} / ${formatDuration(ten.cpuMsPerRequest)} / ${formatDuration(fifty.cpuMsPerRequest)}; ratio to 0 rules (same run): 10 rules ${ratio10.toFixed(3)} (${pct(ratio10)}), 50 rules ${ratio50.toFixed(3)} (${pct(ratio50)}): ${verdict} issue 27's goal (50 rules at most +10 %)`,
    `${name}: per round, in order (rules: CPU per authorize): ${perRound}`,
    `${name}: throughput 0 / 10 / 50 rules ${Math.round(zero.okPerSecond)} / ${Math.round(ten.okPerSecond)} / ${Math.round(fifty.okPerSecond)} req/s; one recorded decision (GET /v1/decisions/{id}, JSON) ${[zero, ten, fifty].map((p) => (p.recordBytes === undefined ? '-' : `${(p.recordBytes / 1024).toFixed(1)} KiB`)).join(' / ')}; pack drafts ${runs.packBytes.map((b) => (b / 1024).toFixed(1)).join(', ')} KiB`,
    `${name}: probe (a basket with a weapon) answered ${runs.probe.without} with no pack active and ${runs.probe.with} with pack 1: the packs are enforced`,
  ];
  if (runs.variant === 'facts') {
    const first = runs.rounds[0]!.run.decisionsBefore;
    const last = runs.rounds[runs.rounds.length - 1]!.run.decisionsBefore;
    notes.push(
      `${name}: the principal's history (every decision is its allowed execute, all inside the counters' windows) grew from ${first} to ${last} decisions over the rounds; the counters count it at every decision with rules active`,
    );
  }
  return notes;
}
