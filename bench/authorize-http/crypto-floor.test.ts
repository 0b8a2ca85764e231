import { describe, expect, it } from 'vitest';
import { measureCryptoFloor } from './crypto-floor.ts';
import { describeRuns, type GroupRuns, type RunContext } from './describe-runs.ts';
import { summarize, type LoadResult } from './run-load.ts';

const context: RunContext = {
  fastifyVersion: '5.0.0',
  autocannonVersion: '8.0.0',
  bodyBytes: 281,
  signed: 10,
  signMs: 1,
  sampleEvery: 20,
  loadAtStart: [0.5, 0.5, 0.5],
  loadAtEnd: [0.5, 0.5, 0.5],
  setup: [],
};

function group(rate: number | undefined, echoCpuMs: number | undefined, authorizeCpuMs: number | undefined): GroupRuns {
  const result: LoadResult = {
    sent: 2,
    ok: 2,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    elapsedSeconds: 1,
    okPerSecond: 2,
    okPerWholeSecond: [2],
    latency: summarize([1, 2]),
    meanResponseBytes: 450,
    raw: { startedAt: 0, latenciesMs: [1, 2], answeredAt: [1, 2], responseBytes: 900 },
  };
  return {
    group: rate === undefined ? 'max throughput, 10 connections' : `fixed ${rate} req/s`,
    ...(rate === undefined ? {} : { rate }),
    echo: { result, cpuMsPerRequest: echoCpuMs },
    authorize: { result, cpuMsPerRequest: authorizeCpuMs },
  };
}

describe('the CPU floor of an authorize', () => {
  it('times one Ed25519 verification and one signature as CPU microseconds per call', () => {
    const floor = measureCryptoFloor(20);
    for (const value of [floor.verifyUs, floor.signUs]) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeGreaterThan(0);
    }
  });

  it('sets the floor beside the budget of the CPU goal, for each max-throughput group with an echo figure', () => {
    const notes = describeRuns([group(undefined, 0.03, 0.9), group(50, 0.2, 3)], {
      ...context,
      floor: { verifyUs: 100, signUs: 40 },
    });
    const line = notes.find((n) => n.startsWith('CPU floor per authorize'));
    // 30 µs of echo + 140 µs of Ed25519 = 170 µs, against 12 × 30 = 360 µs; authorize at 900 µs is 5.3× the floor
    expect(line).toContain('verify 100 µs, sign 40 µs');
    expect(line).toContain('max throughput echo 30 µs + crypto = 170 µs, 47 % of the budget (12× the echo: 360 µs)');
    expect(line).toContain('authorize spent 900 µs (5.3× the floor)');
    expect(line).not.toContain('50 req/s');
  });

  it('says so when no group has an echo CPU figure, and leaves the line out without a floor', () => {
    const withFloor = describeRuns([group(undefined, undefined, undefined)], {
      ...context,
      floor: { verifyUs: 1, signUs: 1 },
    });
    expect(withFloor.find((n) => n.startsWith('CPU floor'))).toContain('no echo CPU figure in this run');
    expect(describeRuns([group(undefined, 0.03, 0.9)], context).some((n) => n.startsWith('CPU floor'))).toBe(false);
  });
});
