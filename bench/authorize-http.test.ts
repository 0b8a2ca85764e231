import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorld, AGENT_ID, type BenchWorld } from './authorize-http/build-world.ts';
import { assertAllAllowed, createAnswerTally, isAllow, splitDecisions } from './authorize-http/check-answers.ts';
import { countDecisions, settledDecisions } from './authorize-http/count-decisions.ts';
import { ECHO_PATH } from './authorize-http/echo-server.ts';
import { readProcessCpuMs } from './authorize-http/process-cpu.ts';
import {
  createRequestFeed,
  redirectRequests,
  signRequestPool,
  type SignedRequest,
} from './authorize-http/request-pool.ts';
import { runPacedLoad } from './authorize-http/paced-load.ts';
import { runLoad, runLoadOn, summarize } from './authorize-http/run-load.ts';
import { startAarServer, startEchoServer, type AarServer } from './authorize-http/start-servers.ts';
import { fixedRateMeasurement } from './authorize-http/to-measurement.ts';
import { readWriteCounters, unitsPerBatch } from './authorize-http/write-batches.ts';
import type { LoadResult } from './authorize-http/run-load.ts';
import { existsSync } from 'node:fs';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('authorize-http: the service in a child process', () => {
  let aar: AarServer;
  let world: BenchWorld;

  beforeAll(async () => {
    aar = await startAarServer();
    world = await buildWorld(aar.base, aar.adminToken);
  });

  afterAll(async () => {
    await aar?.stop();
  });

  it("reads the service's group commit from /metrics: every decision a unit, batches no more than units", async () => {
    const before = await readWriteCounters([aar.base]);
    const pool = await signRequestPool(world, 8);
    const result = await runLoad({
      base: aar.base,
      feed: createRequestFeed(pool, 'once'),
      connections: 4,
      amount: 8,
      maxSeconds: 20,
      inspectBody: () => undefined,
      sampleEvery: 1,
    });
    expect(result).toMatchObject({ ok: 8, non2xx: 0 });
    const after = await readWriteCounters([aar.base]);
    expect(before).toBeDefined();
    expect(after!.units - before!.units).toBeGreaterThanOrEqual(8);
    const mean = unitsPerBatch(before, after)!;
    expect(mean).toBeGreaterThanOrEqual(1);
    expect(mean).toBeLessThanOrEqual(after!.units - before!.units);
    // two instances' counters add up; an unreachable instance gives no figure rather than a wrong one
    const twice = await readWriteCounters([aar.base, aar.base]);
    expect(twice!.units).toBeGreaterThanOrEqual(2 * after!.units);
    expect(await readWriteCounters([aar.base, 'http://127.0.0.1:9'])).toBeUndefined();
    expect(unitsPerBatch(after, after)).toBeUndefined();
  });

  it('answers every pre-signed request of the pool with an allow, and the store agrees', async () => {
    const pool = await signRequestPool(world, 6);
    expect(new Set(pool.map((r) => r.headers['signature-input'])).size).toBe(6);
    const feed = createRequestFeed(pool, 'once');
    const tally = createAnswerTally(isAllow);
    const before = countDecisions(aar.dataDir);

    const result = await runLoad({
      base: aar.base,
      feed,
      connections: 2,
      amount: 6,
      maxSeconds: 20,
      inspectBody: tally.inspect,
      sampleEvery: 1,
    });

    expect(result).toMatchObject({ sent: 6, ok: 6, non2xx: 0, errors: 0 });
    expect(tally).toMatchObject({ matched: 6, unexpected: 0 });
    expect(feed.overflow).toBe(0);
    const decisions = splitDecisions(before, await settledDecisions(aar.dataDir));
    expect(decisions).toEqual({ allowed: 6, other: {} });
    expect(() => assertAllAllowed('smoke', result.ok, decisions, tally)).not.toThrow();
    expect(result.latency.count).toBe(6);
    expect(result.latency.p50Ms).toBeGreaterThan(0);
  });

  it('counts a replayed request as a deny, which the check refuses', async () => {
    const [once] = await signRequestPool(world, 1);
    const feed = createRequestFeed([once!], 'once');
    const tally = createAnswerTally(isAllow);
    const before = countDecisions(aar.dataDir);

    const result = await runLoad({
      base: aar.base,
      feed,
      connections: 1,
      amount: 2,
      maxSeconds: 20,
      inspectBody: tally.inspect,
      sampleEvery: 1,
    });

    expect(feed.overflow).toBe(1);
    const decisions = splitDecisions(before, await settledDecisions(aar.dataDir));
    expect(decisions.allowed).toBe(1);
    expect(decisions.other).toEqual({ 'deny/payload_replayed': 1 });
    expect(tally).toMatchObject({ matched: 1, unexpected: 1 });
    expect(() => assertAllAllowed('replay', result.ok, decisions, tally)).toThrow(/payload_replayed/);
  });

  it('reads the CPU time of the child on Linux', () => {
    const ms = readProcessCpuMs(aar.pid);
    if (process.platform === 'linux') expect(ms).toBeGreaterThan(0);
    else expect(ms).toBeUndefined();
  });
});

describe('authorize-http: the echo ceiling', () => {
  it('echoes the same signed request bytes, then stops', async () => {
    const echo = await startEchoServer();
    try {
      const body = JSON.stringify({ actor_entity_id: AGENT_ID, padding: 'x'.repeat(200) });
      const request: SignedRequest = {
        method: 'POST',
        path: '/v1/runtime/authorize',
        headers: { 'content-type': 'application/json', signature: 'sig=:AAAA:' },
        body,
      };
      const tally = createAnswerTally((b) => b.actor_entity_id === AGENT_ID);
      const result = await runLoad({
        base: echo.base,
        feed: createRequestFeed(redirectRequests([request], ECHO_PATH), 'cycle'),
        connections: 2,
        amount: 10,
        maxSeconds: 10,
        inspectBody: tally.inspect,
        sampleEvery: 1,
      });
      expect(result).toMatchObject({ ok: 10, non2xx: 0 });
      expect(tally).toMatchObject({ matched: 10, unexpected: 0 });
    } finally {
      await echo.stop();
    }
    expect(isAlive(echo.pid)).toBe(false);
  });

  it('spreads one feed over two servers and merges what both answered', async () => {
    const [one, two] = await Promise.all([startEchoServer(), startEchoServer()]);
    try {
      const headers = { 'content-type': 'application/json' };
      const request: SignedRequest = { method: 'POST', path: '/x', headers, body: JSON.stringify({ n: 1 }) };
      const feed = createRequestFeed(redirectRequests([request], ECHO_PATH), 'cycle');
      const result = await runLoadOn([one!.base, two!.base], { feed, connections: 2, amount: 12, maxSeconds: 10 });
      expect(result).toMatchObject({ sent: 12, ok: 12, non2xx: 0, errors: 0 });
      expect(result.raw.latenciesMs).toHaveLength(12);
      expect(result.latency.count).toBe(12);
      expect(result.raw.answeredAt).toEqual([...result.raw.answeredAt].sort((a, b) => a - b));
    } finally {
      await Promise.all([one!.stop(), two!.stop()]);
    }
  });

  it('paces arrivals at a constant rate over two servers, each latency from its due time', async () => {
    const [one, two] = await Promise.all([startEchoServer(), startEchoServer()]);
    try {
      const request: SignedRequest = {
        method: 'POST',
        path: ECHO_PATH,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ actor_entity_id: AGENT_ID }),
      };
      const tally = createAnswerTally((b) => b.actor_entity_id === AGENT_ID);
      const result = await runPacedLoad({
        bases: [one!.base, two!.base],
        feed: createRequestFeed([request], 'cycle'),
        rate: 50,
        seconds: 1,
        connections: 2,
        inspectBody: tally.inspect,
        sampleEvery: 1,
      });
      expect(result).toMatchObject({ sent: 50, ok: 50, non2xx: 0, errors: 0, timeouts: 0, okPerSecond: 50 });
      expect(tally).toMatchObject({ matched: 50, unexpected: 0 });
      // arrivals are spread over the second, not sent at once: the last answer comes ~980 ms after the first due time
      const span = Math.max(...result.raw.answeredAt) - result.raw.startedAt;
      expect(span).toBeGreaterThan(900);
      expect(result.latency.count).toBe(50);
    } finally {
      await Promise.all([one!.stop(), two!.stop()]);
    }
  });

  it('a paced run that is not answered is not sustained: refused connections count as errors', async () => {
    const closed = await startEchoServer();
    await closed.stop();
    const request: SignedRequest = { method: 'POST', path: ECHO_PATH, headers: {}, body: '{}' };
    const result = await runPacedLoad({
      bases: [closed.base],
      feed: createRequestFeed([request], 'cycle'),
      rate: 20,
      seconds: 0.5,
      connections: 1,
      graceSeconds: 2,
    });
    expect(result).toMatchObject({ sent: 10, ok: 0, errors: 10 });
    expect(fixedRateMeasurement('g', 'authorize', result, 20).name).toMatch(/^authorize \(only 0 of 20 req\/s\)$/);
  });

  it('removes the service data dir and process on stop', async () => {
    const aar = await startAarServer();
    await aar.stop();
    expect(isAlive(aar.pid)).toBe(false);
    expect(existsSync(aar.dataDir)).toBe(false);
  });
});

describe('authorize-http: plumbing', () => {
  const req = (path: string): SignedRequest => ({ method: 'POST', path, headers: {}, body: '{}' });

  it('hands out each request once, then repeats the last and counts the overflow', () => {
    const feed = createRequestFeed([req('/a'), req('/b')], 'once');
    expect([feed.next().path, feed.next().path, feed.next().path]).toEqual(['/a', '/b', '/b']);
    expect(feed.overflow).toBe(1);
    expect(feed.taken).toBe(3);
  });

  it('cycles in order in cycle mode, without overflow', () => {
    const feed = createRequestFeed([req('/a'), req('/b')], 'cycle');
    expect([feed.next().path, feed.next().path, feed.next().path]).toEqual(['/a', '/b', '/a']);
    expect(feed.overflow).toBe(0);
  });

  it('computes exact nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(summarize(values)).toMatchObject({ meanMs: 50.5, p50Ms: 50, p99Ms: 99, count: 100 });
    expect(summarize([]).count).toBe(0);
  });

  it('names a fixed-rate row by the rate it achieved', () => {
    const result = (ok: number, elapsedSeconds: number): LoadResult => ({
      sent: ok,
      ok,
      non2xx: 0,
      errors: 0,
      timeouts: 0,
      elapsedSeconds,
      okPerSecond: ok / elapsedSeconds,
      okPerWholeSecond: [],
      latency: summarize([1, 2, 3]),
      meanResponseBytes: 100,
      raw: { startedAt: 0, latenciesMs: [1, 2, 3], answeredAt: [], responseBytes: 300 },
    });
    // kept up: 400 requests in 4 one-second windows, the last one ended early
    expect(fixedRateMeasurement('g', 'authorize', result(400, 3.4), 100).name).toBe('authorize (sustained 100 req/s)');
    expect(fixedRateMeasurement('g', 'authorize', result(300, 4.5), 100).name).toBe('authorize (only 67 of 100 req/s)');
  });
});
