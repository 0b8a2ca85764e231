/**
 * `POST /v1/runtime/authorize` over real HTTP against `aar serve` on its embedded default (SQLite file, WAL,
 * synchronous NORMAL with the store's own fdatasync of the log before every answer), with a bare Fastify JSON echo as the ceiling; both servers are child processes on loopback and
 * the load (autocannon) runs here. Every authorize request is signed beforehand with its own nonce, and every run is
 * checked to have decided allows only. See bench/README.md for what the rows mean.
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import type { Benchmark, BenchReport, Measurement } from './lib/bench-report.ts';
import { buildWorld, isBenchAgent } from './authorize-http/build-world.ts';
import { assertAllAllowed, createAnswerTally, isAllow, splitDecisions } from './authorize-http/check-answers.ts';
import { countStoredDecisions, settledDecisions } from './authorize-http/count-decisions.ts';
import { ECHO_PATH } from './authorize-http/echo-server.ts';
import { readProcessCpuMs } from './authorize-http/process-cpu.ts';
import { readWriteCounters, unitsPerBatch } from './authorize-http/write-batches.ts';
import {
  createRequestFeed,
  redirectRequests,
  signRequestPool,
  type RequestFeed,
} from './authorize-http/request-pool.ts';
import { runPacedLoad } from './authorize-http/paced-load.ts';
import { runLoadOn, type LoadOptions, type LoadResult } from './authorize-http/run-load.ts';
import {
  AGENTS,
  postgresReachable,
  startScenario,
  type Scenario,
  type ScenarioKind,
} from './authorize-http/scenarios.ts';
import { startEchoServer } from './authorize-http/start-servers.ts';
import type { ChildServer } from './authorize-http/spawn-child.ts';
import { fixedRateMeasurement, throughputMeasurement } from './authorize-http/to-measurement.ts';
import { describeRuns, type GroupRuns, type RunStats } from './authorize-http/describe-runs.ts';
import { measureCryptoFloor } from './authorize-http/crypto-floor.ts';

/** max-throughput runs: closed loop, this many connections */
const CONNECTIONS = 10;
const ECHO_MAX_SECONDS = 8;
const AUTHORIZE_MAX_SECONDS = 10;
/** bound of the authorize max-throughput run: 2,000 req/s for 10 s; a faster service ends the run early */
const AUTHORIZE_MAX_AMOUNT = 20_000;
/** Chosen around what the embedded default sustains on the 2-core reference machine (~100-350 req/s, depending on the load). */
const FIXED_RATES = [50, 100, 250, 500] as const;
/**
 * Fixed rates are paced arrivals (authorize-http/paced-load.ts: request i due at start + i / rate, its latency counted
 * from that due time), over this many sockets per server, so that a request rarely waits for a free one; until
 * session 5 they were autocannon's `overallRate` over 2 connections, a quota per connection sent back to back at the
 * start of every second, whose latencies measured that burst (and, at half the max, a closed loop at 2 in flight).
 */
const PACED_CONNECTIONS = 16;
const FIXED_SECONDS = 4;
/**
 * A fresh service is slower for its first few thousand decisions (JIT, SQLite files growing): measure past that.
 * 2,000 was too few on a slower machine: a whole-process profile (bench/README.md) showed V8's optimizing compiler
 * threads taking a quarter of the process's CPU during the first timed group, which the CPU per request then counted.
 */
const WARMUP_REQUESTS = 5000;
const WARMUP_SECONDS = 12;
const ECHO_WARMUP_SECONDS = 1.5;
/** one answered body in this many is parsed and checked (plus every non-2xx) */
const SAMPLE_EVERY = 20;
/** the echo cycles through this many of the signed requests: same bytes, no need for uniqueness */
const ECHO_REQUESTS = 256;

const requireHere = createRequire(import.meta.url);

export const authorizeHttp: Benchmark = {
  name: 'authorize-http',
  description:
    '`POST /v1/runtime/authorize` over loopback HTTP (`aar serve` in child processes: SQLite WAL, its log fdatasynced off the event loop before every answer; PostgreSQL with one and with two instances, one agent and grant, then many) vs a bare Fastify JSON echo; ratio = echo ÷ authorize, per group.',
  async run(): Promise<BenchReport> {
    const loadAtStart = os.loadavg();
    // before any server starts: the runner's one thread alone times the Ed25519 every authorize does
    const floor = measureCryptoFloor();
    const fastifyVersion = sameFastifyVersion();
    const echo = await startEchoServer();
    const groups: GroupRuns[] = [];
    const counts = { signed: 0, signMs: 0, bodyBytes: 0 };
    const skipped: string[] = [];
    try {
      const kinds: ScenarioKind[] = [];
      if (process.env.AAR_BENCH_AUTHORIZE_SQLITE === '0')
        skipped.push('SQLite groups skipped (AAR_BENCH_AUTHORIZE_SQLITE=0)');
      else kinds.push('sqlite');
      if (process.env.AAR_BENCH_AUTHORIZE_PG === '0')
        skipped.push('PostgreSQL groups skipped (AAR_BENCH_AUTHORIZE_PG=0)');
      else if (await postgresReachable())
        kinds.push('postgres-1', 'postgres-2', 'postgres-1-agents', 'postgres-2-agents');
      else skipped.push('PostgreSQL not reachable (AAR_TEST_PG_URL): its groups are skipped');
      // AAR_BENCH_AUTHORIZE_ONLY=postgres-1,postgres-2 (say): only those scenarios, to study one pair
      const only = process.env.AAR_BENCH_AUTHORIZE_ONLY?.split(',');
      if (only) {
        skipped.push(`only ${only.join(', ')} (AAR_BENCH_AUTHORIZE_ONLY)`);
        kinds.splice(0, kinds.length, ...kinds.filter((kind) => only.includes(kind)));
      }
      for (const kind of kinds) {
        const scenario = await startScenario(kind);
        try {
          groups.push(...(await measureScenario(scenario, echo, counts)));
        } finally {
          await scenario.stop();
        }
      }
    } finally {
      await echo.stop();
    }
    return {
      name: this.name,
      description: this.description,
      measurements: groups.flatMap(toMeasurements),
      notes: [
        ...describeRuns(groups, {
          fastifyVersion,
          autocannonVersion: packageVersion('autocannon'),
          bodyBytes: counts.bodyBytes,
          signed: counts.signed,
          signMs: counts.signMs,
          sampleEvery: SAMPLE_EVERY,
          loadAtStart,
          loadAtEnd: os.loadavg(),
          floor,
          setup: [
            `warm-up before timing: echo ${ECHO_WARMUP_SECONDS} s, authorize ${WARMUP_REQUESTS} requests or ${WARMUP_SECONDS} s per store (checked like the rest)`,
            `max throughput: ${CONNECTIONS} connections (split evenly over the instances), echo ${ECHO_MAX_SECONDS} s, authorize ${AUTHORIZE_MAX_SECONDS} s or ${AUTHORIZE_MAX_AMOUNT} requests; ops/s = 2xx answers per second, mean = its reciprocal, p50/p99 = latency per request`,
            `fixed rates: paced arrivals, open loop (request i due at start + i / rate, its latency counted from its due time, undici Pool of ${PACED_CONNECTIONS} sockets per server): ${FIXED_RATES.join(', ')} req/s on SQLite, and half the max throughput each store reached just before, rate × ${FIXED_SECONDS} requests; ops/s = 1000 / mean latency; "only X of N" = not every request was answered 2xx within 1 s of its due time at the end (the rate was not sustained)`,
            "PostgreSQL: a fresh schema on the local server (AAR_TEST_PG_URL); with two instances both share the schema and the audit chain, CPU per request counts both processes (not PostgreSQL's own)",
            `PostgreSQL groups "${AGENTS} agents": ${AGENTS} cardholders (person, agent, card token, grant each), the pool signed by each agent in turn; the other groups have one agent and one grant, whose day's spend row every request locks until its batch commits`,
          ],
        }),
        ...skipped,
      ],
    };
  },
};

/** One store: warm-up, max throughput, its fixed rates, then half of the max it reached; each beside the echo. */
async function measureScenario(
  scenario: Scenario,
  echo: ChildServer,
  counts: { signed: number; signMs: number; bodyBytes: number },
): Promise<GroupRuns[]> {
  const first = scenario.servers[0]!;
  const world = await buildWorld(first.base, first.adminToken, scenario.agents);
  const sign = async (n: number) => {
    const started = performance.now();
    const pool = await signRequestPool(world, n);
    counts.signMs += performance.now() - started;
    counts.signed += pool.length;
    counts.bodyBytes = Buffer.byteLength(pool[0]!.body);
    return pool;
  };
  const fixedRates = scenario.kind === 'sqlite' ? FIXED_RATES : [];
  const pool = await sign(
    WARMUP_REQUESTS + AUTHORIZE_MAX_AMOUNT + fixedRates.reduce((n, r) => n + r * FIXED_SECONDS, 0),
  );
  const authorizeFeed = createRequestFeed(pool, 'once');
  const echoFeed = createRequestFeed(redirectRequests(pool.slice(0, ECHO_REQUESTS), ECHO_PATH), 'cycle');
  const runEcho = (shape: LoadShape) => measureEcho(echo, echoFeed, shape);
  const runAuthorize = (feed: RequestFeed, label: string, shape: LoadShape) =>
    measureAuthorize(scenario, feed, label, shape);

  await runEcho({ connections: CONNECTIONS, amount: 50_000, maxSeconds: ECHO_WARMUP_SECONDS });
  await runAuthorize(authorizeFeed, `${scenario.short} warm-up`, {
    connections: CONNECTIONS,
    amount: WARMUP_REQUESTS,
    maxSeconds: WARMUP_SECONDS,
  });

  // echo, then authorize, group after group: both sides of a ratio are measured one after the other
  const groups: GroupRuns[] = [];
  const maxGroup = `${scenario.prefix}max throughput, ${CONNECTIONS} connections`;
  groups.push({
    group: maxGroup,
    short: `${scenario.short} max throughput`,
    echo: await runEcho({ connections: CONNECTIONS, amount: 10_000_000, maxSeconds: ECHO_MAX_SECONDS }),
    authorize: await runAuthorize(authorizeFeed, maxGroup, {
      connections: CONNECTIONS,
      amount: AUTHORIZE_MAX_AMOUNT,
      maxSeconds: AUTHORIZE_MAX_SECONDS,
    }),
  });
  const fixed = async (rate: number, feed: RequestFeed, group: string, short: string) => {
    const shape = {
      connections: PACED_CONNECTIONS,
      amount: rate * FIXED_SECONDS,
      maxSeconds: FIXED_SECONDS,
      overallRate: rate,
    };
    groups.push({ group, short, rate, echo: await runEcho(shape), authorize: await runAuthorize(feed, group, shape) });
  };
  for (const rate of fixedRates) {
    await fixed(rate, authorizeFeed, `fixed ${rate} req/s, paced arrivals`, `${rate} req/s`);
  }
  if (authorizeFeed.overflow > 0) throw new Error(`the signed pool ran out: ${authorizeFeed.overflow} replays`);

  // half of the max this store just reached: the latency goal's load (p99 at half the maximum sustained rate)
  const half = Math.max(10, Math.floor(groups[0]!.authorize.result.okPerSecond / 2));
  const halfFeed = createRequestFeed(await sign(half * FIXED_SECONDS), 'once');
  await fixed(
    half,
    halfFeed,
    `${scenario.prefix}fixed ${half} req/s (half the max), paced arrivals`,
    `${scenario.short} half the max (${half} req/s)`,
  );
  if (halfFeed.overflow > 0) throw new Error(`the signed pool ran out: ${halfFeed.overflow} replays`);
  return groups;
}

function toMeasurements(runs: GroupRuns): Measurement[] {
  if (runs.rate === undefined) {
    return [
      throughputMeasurement(runs.group, 'echo (bare Fastify)', runs.echo.result, true),
      throughputMeasurement(runs.group, 'authorize', runs.authorize.result),
    ];
  }
  return [
    fixedRateMeasurement(runs.group, 'echo', runs.echo.result, runs.rate, true),
    fixedRateMeasurement(runs.group, 'authorize', runs.authorize.result, runs.rate),
  ];
}

type LoadShape = Pick<LoadOptions, 'connections' | 'amount' | 'maxSeconds' | 'overallRate'>;

/** A run of `shape` over `bases`: paced arrivals at a fixed rate, else as fast as the servers answer. */
function runShape(
  bases: readonly string[],
  feed: RequestFeed,
  shape: LoadShape,
  inspectBody: (status: number, body: string) => void,
): Promise<LoadResult> {
  if (shape.overallRate === undefined)
    return runLoadOn(bases, { ...shape, feed, inspectBody, sampleEvery: SAMPLE_EVERY });
  return runPacedLoad({
    bases,
    feed,
    rate: shape.overallRate,
    seconds: shape.maxSeconds,
    connections: shape.connections,
    inspectBody,
    sampleEvery: SAMPLE_EVERY,
  });
}

async function measureEcho(echo: ChildServer, feed: RequestFeed, shape: LoadShape): Promise<RunStats> {
  const tally = createAnswerTally((body) => isBenchAgent(body.actor_entity_id));
  const cpuBefore = readProcessCpuMs(echo.pid);
  const result = await runShape([echo.base], feed, shape, tally.inspect);
  const cpuAfter = readProcessCpuMs(echo.pid);
  if (tally.unexpected > 0) throw new Error(`echo answered something else: ${tally.examples.join(' | ')}`);
  return { result, cpuMsPerRequest: perRequest(cpuBefore, cpuAfter, result.ok) };
}

async function measureAuthorize(
  scenario: Scenario,
  feed: RequestFeed,
  label: string,
  shape: LoadShape,
): Promise<RunStats> {
  const tally = createAnswerTally(isAllow);
  const before = await countStoredDecisions(scenario.store);
  const bases = scenario.servers.map((s) => s.base);
  const writesBefore = await readWriteCounters(bases);
  const cpuBefore = processesCpuMs(scenario);
  const result = await runShape(bases, feed, shape, tally.inspect);
  const decisions = splitDecisions(before, await settledDecisions(scenario.store));
  const cpuAfter = processesCpuMs(scenario);
  const writesAfter = await readWriteCounters(bases);
  assertAllAllowed(`authorize, ${label}`, result.ok, decisions, tally);
  return {
    result,
    cpuMsPerRequest: perRequest(cpuBefore, cpuAfter, decisions.allowed),
    allowed: decisions.allowed,
    unitsPerBatch: unitsPerBatch(writesBefore, writesAfter),
  };
}

/** every instance's CPU time, summed (all threads of each process) */
function processesCpuMs(scenario: Scenario): number | undefined {
  let total = 0;
  for (const server of scenario.servers) {
    const ms = readProcessCpuMs(server.pid);
    if (ms === undefined) return undefined;
    total += ms;
  }
  return total;
}

/** below this much CPU in a run, the 10 ms tick of /proc makes a per-request figure meaningless */
const MIN_CPU_MS = 200;

function perRequest(before: number | undefined, after: number | undefined, requests: number): number | undefined {
  if (before === undefined || after === undefined || requests === 0 || after - before < MIN_CPU_MS) return undefined;
  return (after - before) / requests;
}

function packageVersion(name: string, from = requireHere): string {
  return (from(`${name}/package.json`) as { version: string }).version;
}

/** The echo must run the Fastify the service runs: resolved from each one's own package. */
function sameFastifyVersion(): string {
  const server = createRequire(new URL('../packages/server/package.json', import.meta.url));
  const echo = packageVersion('fastify');
  const service = packageVersion('fastify', server);
  if (echo !== service) throw new Error(`the echo would run Fastify ${echo}, the service ${service}`);
  return echo;
}
