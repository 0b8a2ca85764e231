/**
 * One autocannon run over a request feed, with its own latency record. Why not autocannon's own statistics: its
 * latency histogram has a 1 ms floor (the echo answers in well under a millisecond), and with a rate it "corrects"
 * coordinated omission by inventing samples at 1 ms steps. Here every answered request is timed by autocannon's
 * hrtime (float milliseconds) and kept; the statistics are computed on the exact values.
 *
 * autocannon's rate (`overallRate`) is a quota per connection per one-second window, not a constant arrival rate:
 * within each second the connections send back to back until their quota is met, then wait for the next window.
 */
import { createRequire } from 'node:module';
import type { RequestFeed } from './request-pool.ts';

export interface LoadOptions {
  /** `http://127.0.0.1:<port>` */
  base: string;
  feed: RequestFeed;
  connections: number;
  /** at most this many requests are sent */
  amount: number;
  /** wall-clock bound: the run is stopped after this many seconds even when `amount` was not reached */
  maxSeconds: number;
  /** requests per second over all connections; unset: as fast as the server answers */
  overallRate?: number;
  /** called with every `sampleEvery`-th answered body and every non-2xx body */
  inspectBody?: (status: number, body: string) => void;
  sampleEvery?: number;
}

export interface LatencyStats {
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  /** relative margin of error of the mean, percent (95 %) */
  rmePercent: number;
  count: number;
}

export interface LoadResult {
  /** requests built from the feed, each written to a socket (autocannon's own count is off with a rate) */
  sent: number;
  /** 2xx answers */
  ok: number;
  non2xx: number;
  /** socket errors and timeouts (autocannon counts a timeout as an error too) */
  errors: number;
  timeouts: number;
  /** from the first request to the last answer */
  elapsedSeconds: number;
  /** 2xx answers per second over `elapsedSeconds` */
  okPerSecond: number;
  /** 2xx answers in each whole second of the run */
  okPerWholeSecond: number[];
  /** of the 2xx answers */
  latency: LatencyStats;
  /** mean size of a 2xx answer on the wire, headers included */
  meanResponseBytes: number;
  /** the raw record, for merging runs made in parallel against several servers (mergeLoads) */
  raw: { startedAt: number; latenciesMs: number[]; answeredAt: number[]; responseBytes: number };
}

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest, context: unknown) => AutocannonRequest;
  onResponse?: (status: number, body: string) => void;
}

interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  stop(): void;
}

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
}

type Autocannon = (
  options: Record<string, unknown>,
  done: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

// autocannon ships CommonJS without type declarations; the three members used here are typed above.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const answeredAt: number[] = [];
  let responseBytes = 0;
  const sampleEvery = options.sampleEvery ?? 1;
  let answered = 0;
  const request: AutocannonRequest = {
    setupRequest: (defaults) => {
      const next = options.feed.next();
      return { ...defaults, method: next.method, path: next.path, headers: next.headers, body: next.body };
    },
    onResponse: (status, body) => {
      answered++;
      if (options.inspectBody && (status < 200 || status > 299 || answered % sampleEvery === 0)) {
        options.inspectBody(status, body);
      }
    },
  };
  const takenBefore = options.feed.taken;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.base,
        connections: options.connections,
        amount: options.amount,
        ...(options.overallRate ? { overallRate: options.overallRate, ignoreCoordinatedOmission: true } : {}),
        timeout: 10,
        requests: [request],
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    );
    instance.on('response', (_client, status, bytes, ms) => {
      if (status < 200 || status > 299) return;
      latencies.push(ms);
      responseBytes += bytes;
      answeredAt.push(performance.now());
    });
    // with `amount`, autocannon ignores `duration`: this is the time bound
    timer = setTimeout(() => instance.stop(), options.maxSeconds * 1000);
  });
  clearTimeout(timer);
  const last = answeredAt[answeredAt.length - 1] ?? started;
  const elapsedSeconds = Math.max((last - started) / 1000, 1e-3);
  return {
    sent: options.feed.taken - takenBefore,
    ok: latencies.length,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    elapsedSeconds,
    okPerSecond: latencies.length / elapsedSeconds,
    okPerWholeSecond: countPerWholeSecond(answeredAt, started),
    latency: summarize(latencies),
    meanResponseBytes: latencies.length > 0 ? responseBytes / latencies.length : NaN,
    raw: { startedAt: started, latenciesMs: latencies, answeredAt, responseBytes },
  };
}

/**
 * Several servers under load at once (one runLoad each, started together, one shared feed): the combined record,
 * as if one load generator had spread its connections over them.
 */
export async function runLoadOn(bases: readonly string[], options: Omit<LoadOptions, 'base'>): Promise<LoadResult> {
  if (bases.length === 1) return runLoad({ ...options, base: bases[0]! });
  const share = (n: number) => Math.max(1, Math.round(n / bases.length));
  const takenBefore = options.feed.taken;
  const results = await Promise.all(
    bases.map((base) =>
      runLoad({
        ...options,
        base,
        connections: share(options.connections),
        amount: share(options.amount),
        ...(options.overallRate ? { overallRate: share(options.overallRate) } : {}),
      }),
    ),
  );
  const startedAt = Math.min(...results.map((r) => r.raw.startedAt));
  const latencies = results.flatMap((r) => r.raw.latenciesMs);
  const answeredAt = results.flatMap((r) => r.raw.answeredAt).sort((a, b) => a - b);
  const responseBytes = results.reduce((n, r) => n + r.raw.responseBytes, 0);
  const last = answeredAt[answeredAt.length - 1] ?? startedAt;
  const elapsedSeconds = Math.max((last - startedAt) / 1000, 1e-3);
  const total = (pick: (r: LoadResult) => number) => results.reduce((n, r) => n + pick(r), 0);
  return {
    sent: options.feed.taken - takenBefore,
    ok: latencies.length,
    non2xx: total((r) => r.non2xx),
    errors: total((r) => r.errors),
    timeouts: total((r) => r.timeouts),
    elapsedSeconds,
    okPerSecond: latencies.length / elapsedSeconds,
    okPerWholeSecond: countPerWholeSecond(answeredAt, startedAt),
    latency: summarize(latencies),
    meanResponseBytes: latencies.length > 0 ? responseBytes / latencies.length : NaN,
    raw: { startedAt, latenciesMs: latencies, answeredAt, responseBytes },
  };
}

/** Answers in each whole second of a run, from `times` in increasing order. */
export function countPerWholeSecond(times: readonly number[], started: number): number[] {
  const last = times[times.length - 1];
  if (last === undefined) return [];
  const whole = Math.floor((last - started) / 1000);
  const counts = new Array<number>(whole).fill(0);
  for (const t of times) {
    const second = Math.floor((t - started) / 1000);
    if (second < whole) counts[second] = (counts[second] ?? 0) + 1;
  }
  return counts;
}

/** Exact statistics of the recorded values (no histogram): nearest-rank percentiles. */
export function summarize(values: readonly number[]): LatencyStats {
  const count = values.length;
  if (count === 0) return { meanMs: NaN, p50Ms: NaN, p99Ms: NaN, rmePercent: NaN, count: 0 };
  const sorted = Float64Array.from(values).sort();
  const mean = sorted.reduce((sum, v) => sum + v, 0) / count;
  const variance = count > 1 ? sorted.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (count - 1) : 0;
  const rank = (q: number) => sorted[Math.min(count - 1, Math.max(0, Math.ceil(q * count) - 1))]!;
  return {
    meanMs: mean,
    p50Ms: rank(0.5),
    p99Ms: rank(0.99),
    rmePercent: ((1.96 * Math.sqrt(variance / count)) / mean) * 100,
    count,
  };
}
