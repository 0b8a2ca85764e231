/**
 * Open-loop load at a constant arrival rate: request i is due at start + i / rate, whatever happened to the ones
 * before it, and is handed to the client then; its latency runs from that moment to the end of its answer, so a
 * request that waits in the client for a free socket (all of them held by slow answers) is charged the wait: no
 * coordinated omission. The timer's own lateness (Node's timers fire up to ~1 ms late) is the generator's, not the
 * server's: it is left out of the latency and reported as `lagMs`. This is what "p99 at a sustained rate" means. autocannon's `overallRate` is not that: it gives each connection a quota per one-second window, sent back to
 * back at the start of the window, so its latencies measure a burst every second (run-load.ts).
 * Written here because autocannon has no constant-arrival mode; the HTTP client is undici's Pool (one per server,
 * `connections` sockets each, no pipelining). Bounded: `rate × seconds` requests, then at most `graceSeconds` for
 * the last answers; loopback only.
 */
import { Pool } from 'undici';
import type { RequestFeed } from './request-pool.ts';
import { countPerWholeSecond, summarize, type LoadResult } from './run-load.ts';

export interface PacedLoadOptions {
  /** `http://127.0.0.1:<port>` of each server; arrivals go to them in turn */
  bases: readonly string[];
  feed: RequestFeed;
  /** arrivals per second over all servers */
  rate: number;
  seconds: number;
  /** sockets per server: enough that a request rarely waits for one */
  connections: number;
  /** how long after the last arrival the run waits for answers before it counts the rest as timeouts */
  graceSeconds?: number;
  /** called with every `sampleEvery`-th answered body and every non-2xx body */
  inspectBody?: (status: number, body: string) => void;
  sampleEvery?: number;
}

export interface PacedLoadResult extends LoadResult {
  /** how late the generator handed requests to the client, ms (its timers' lateness; not in the latencies) */
  lagMs: { mean: number; max: number };
}

export async function runPacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const total = Math.max(1, Math.round(options.rate * options.seconds));
  const intervalMs = 1000 / options.rate;
  const sampleEvery = options.sampleEvery ?? 1;
  const pools = options.bases.map(
    (base) => new Pool(base, { connections: options.connections, pipelining: 1, keepAliveTimeout: 10_000 }),
  );
  const latencies: number[] = [];
  const answeredAt: number[] = [];
  let responseBytes = 0;
  let non2xx = 0;
  let errors = 0;
  let answered = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const takenBefore = options.feed.taken;

  let lagTotal = 0;
  let lagMax = 0;
  const send = (dueAt: number, index: number): void => {
    const sentAt = performance.now();
    lagTotal += sentAt - dueAt;
    lagMax = Math.max(lagMax, sentAt - dueAt);
    const next = options.feed.next();
    sent += 1;
    const pool = pools[index % pools.length]!;
    const done = pool
      .request({ method: next.method as 'POST', path: next.path, headers: next.headers, body: next.body })
      .then(async (res) => {
        const text = await res.body.text();
        const now = performance.now();
        answered += 1;
        const ok = res.statusCode >= 200 && res.statusCode <= 299;
        if (options.inspectBody && (!ok || answered % sampleEvery === 0)) options.inspectBody(res.statusCode, text);
        if (!ok) {
          non2xx += 1;
          return;
        }
        latencies.push(now - sentAt);
        answeredAt.push(now);
        responseBytes += headerBytes(res.headers) + Buffer.byteLength(text);
      })
      .catch(() => {
        errors += 1;
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  const started = performance.now();
  let index = 0;
  // the schedule: wake for the next due arrival and send every arrival due by then (a late wake sends a few at
  // once, each still timed from its own due time)
  while (index < total) {
    const now = performance.now();
    while (index < total && started + index * intervalMs <= now) {
      send(started + index * intervalMs, index);
      index += 1;
    }
    if (index < total) {
      const wait = started + index * intervalMs - performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
    }
  }
  const lastDue = started + (total - 1) * intervalMs;
  const grace = (options.graceSeconds ?? 5) * 1000;
  const pending = Promise.allSettled([...inFlight]);
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    pending.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, lastDue + grace - performance.now()));
    }),
  ]);
  clearTimeout(timer);
  const timeouts = settled ? 0 : inFlight.size;
  await Promise.all(pools.map((pool) => pool.destroy()));
  // answers are recorded as they arrive: in increasing order
  const last = answeredAt[answeredAt.length - 1] ?? started;
  const elapsedSeconds = Math.max((last - started) / 1000, 1e-3);
  // kept up: every arrival answered 2xx, the last within a second of its due time
  const keptUp = latencies.length === total && last - lastDue <= 1000;
  return {
    sent: options.feed.taken - takenBefore,
    ok: latencies.length,
    non2xx,
    errors,
    timeouts,
    elapsedSeconds,
    okPerSecond: keptUp ? options.rate : latencies.length / elapsedSeconds,
    okPerWholeSecond: countPerWholeSecond(answeredAt, started),
    latency: summarize(latencies),
    meanResponseBytes: latencies.length > 0 ? responseBytes / latencies.length : NaN,
    raw: { startedAt: started, latenciesMs: latencies, answeredAt, responseBytes },
    lagMs: { mean: sent > 0 ? lagTotal / sent : 0, max: lagMax },
  };
}

/** The size of the status line and headers on the wire, approximately (undici hands them parsed). */
function headerBytes(headers: Record<string, string | string[] | undefined>): number {
  let n = 'HTTP/1.1 200 OK\r\n\r\n'.length;
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value ?? '']) n += name.length + 2 + v.length + 2;
  }
  return n;
}
