/**
 * The notes under the authorize-http table: what ran, the checks that passed, and the numbers the table rounds
 * away or has no column for (exact ratios, non-2xx answers, server CPU per request, machine load).
 */
import os from 'node:os';
import { formatDuration } from '../lib/format-numbers.ts';
import type { CryptoFloor } from './crypto-floor.ts';
import type { LoadResult } from './run-load.ts';

/** issue 10's goal: server CPU per authorize at most this many times the echo's CPU per request */
const CPU_BUDGET_TIMES_ECHO = 12;

export interface RunStats {
  result: LoadResult;
  /** server CPU milliseconds per answered (echo) or decided (authorize) request; undefined off Linux or too little */
  cpuMsPerRequest: number | undefined;
  /** authorize only: allows the store recorded during the run */
  allowed?: number;
  /** authorize only: the write queue's mean batch size during the run, over every instance (`/metrics`) */
  unitsPerBatch?: number | undefined;
}

/** One group of the table: the echo (baseline) and authorize, run one after the other under the same load shape. */
export interface GroupRuns {
  group: string;
  /** the group's name in the notes; default `max throughput` or `<rate> req/s` */
  short?: string;
  /** the fixed rate, req/s; undefined for the max-throughput group */
  rate?: number;
  echo: RunStats;
  authorize: RunStats;
}

export interface RunContext {
  fastifyVersion: string;
  autocannonVersion: string;
  bodyBytes: number;
  signed: number;
  signMs: number;
  sampleEvery: number;
  /** os.loadavg() */
  loadAtStart: readonly number[];
  loadAtEnd: readonly number[];
  /** how the groups were run, one line each */
  setup: readonly string[];
  /** the Ed25519 work every authorize does, timed in this run (crypto-floor.ts) */
  floor?: CryptoFloor;
}

export function describeRuns(groups: readonly GroupRuns[], context: RunContext): string[] {
  const max = groups.find((g) => g.rate === undefined);
  const sum = (pick: (g: GroupRuns) => number) => groups.reduce((n, g) => n + pick(g), 0);
  return [
    `servers: \`aar serve\` (child processes; SQLite in a temp dir, WAL, its log fdatasynced by the store off the event loop before every answer, or PostgreSQL; log level warn; rate limit 10M/min) and a bare Fastify ${context.fastifyVersion} echo (child process, no logger, no plugins); load: autocannon ${context.autocannonVersion} in the runner process; 127.0.0.1 only`,
    `same request bytes to both: headers (bearer token, RFC 9421 signature) and a ${context.bodyBytes}-byte JSON body${max ? `; answers differ: echo ${bytes(max.echo.result)} bytes, authorize ${bytes(max.authorize.result)} bytes (signed decision map) on average` : ''}`,
    ...context.setup,
    `every authorize request signed beforehand with its own nonce: ${context.signed} in ${formatDuration(context.signMs)} (not timed); after each run the store had recorded allows only (${sum((g) => g.authorize.allowed ?? 0)} in the timed runs) and 1 answer in ${context.sampleEvery} was parsed: all allows`,
    `authorize against the echo: ${groups.map(compareGroup).join('; ')}`,
    `non-2xx answers: echo ${sum((g) => g.echo.result.non2xx)}, authorize ${sum((g) => g.authorize.result.non2xx)}; socket errors: echo ${sum((g) => g.echo.result.errors)}, authorize ${sum((g) => g.authorize.result.errors)}`,
    `server CPU per request (/proc, all threads; steadier than time under load; - = under 0.2 s in the run, too few 10-ms ticks), echo / authorize (authorize ÷ echo): ${groups.map((g) => `${shortName(g)} ${cpu(g.echo)} / ${cpu(g.authorize)}${cpuRatio(g)}`).join('; ')}`,
    ...(context.floor ? [describeFloor(groups, context.floor)] : []),
    `write units per batch (group commit, the service's /metrics before and after each run, all instances): ${groups.map((g) => `${shortName(g)} ${g.authorize.unitsPerBatch === undefined ? '-' : g.authorize.unitsPerBatch.toFixed(1)}`).join('; ')}`,
    describeLoad(context.loadAtStart, context.loadAtEnd),
  ];
}

/** The ratios the table rounds away: it shows 2 decimals, and authorize is orders of magnitude below the echo. */
function compareGroup(g: GroupRuns): string {
  const echo = g.echo.result;
  const auth = g.authorize.result;
  if (g.rate === undefined) {
    return `${shortName(g)}: throughput ${((auth.okPerSecond / echo.okPerSecond) * 100).toPrecision(2)} % of the echo's (echo ${(echo.okPerSecond / auth.okPerSecond).toFixed(0)}× as many req/s)`;
  }
  const times = (a: number, b: number) => `${(a / b).toFixed(0)}×`;
  return `${shortName(g)}: p50 ${times(auth.latency.p50Ms, echo.latency.p50Ms)}, p99 ${times(auth.latency.p99Ms, echo.latency.p99Ms)} the echo's`;
}

/**
 * What no authorize can spend less than, beside the budget of the CPU goal: the echo's CPU per request (the HTTP
 * exchange, in the same run) plus one Ed25519 verification and one signature (this run, runner process, hot loop).
 */
function describeFloor(groups: readonly GroupRuns[], floor: CryptoFloor): string {
  const crypto = floor.verifyUs + floor.signUs;
  const perGroup = groups
    .filter((g) => g.rate === undefined && g.echo.cpuMsPerRequest !== undefined)
    .map((g) => {
      const echoUs = g.echo.cpuMsPerRequest! * 1000;
      const floorUs = echoUs + crypto;
      const budgetUs = CPU_BUDGET_TIMES_ECHO * echoUs;
      const spent =
        g.authorize.cpuMsPerRequest === undefined
          ? ''
          : `, authorize spent ${us(g.authorize.cpuMsPerRequest * 1000)} (${((g.authorize.cpuMsPerRequest * 1000) / floorUs).toFixed(1)}× the floor)`;
      return `${shortName(g)} echo ${us(echoUs)} + crypto = ${us(floorUs)}, ${((floorUs / budgetUs) * 100).toFixed(0)} % of the budget (${CPU_BUDGET_TIMES_ECHO}× the echo: ${us(budgetUs)})${spent}`;
    });
  return `CPU floor per authorize (Ed25519 timed in this run, runner process, hot loop: verify ${us(floor.verifyUs)}, sign ${us(floor.signUs)}; plus the echo's CPU per request): ${perGroup.length > 0 ? perGroup.join('; ') : 'no echo CPU figure in this run'}`;
}

function describeLoad(atStart: readonly number[], atEnd: readonly number[]): string {
  const cores = os.cpus().length;
  const busy = Math.max(atStart[0] ?? 0, atEnd[0] ?? 0) > cores;
  const verdict = busy
    ? `above the ${cores} cores: other processes competed with both servers and the load generator, so absolute numbers are low and noisy; compare ratios and CPU per request`
    : `within the ${cores} cores`;
  return `load average (1/5/15 min) at start ${loads(atStart)}, at end ${loads(atEnd)}: ${verdict}`;
}

const shortName = (g: GroupRuns) => g.short ?? (g.rate === undefined ? 'max throughput' : `${g.rate} req/s`);
const cpuRatio = (g: GroupRuns) =>
  g.echo.cpuMsPerRequest && g.authorize.cpuMsPerRequest
    ? ` (${(g.authorize.cpuMsPerRequest / g.echo.cpuMsPerRequest).toFixed(1)}×)`
    : '';
const bytes = (result: LoadResult) => Math.round(result.meanResponseBytes).toLocaleString('en-US');
const cpu = (stats: RunStats) => formatDuration(stats.cpuMsPerRequest);
const us = (micros: number) => `${micros.toFixed(0)} µs`;
const loads = (values: readonly number[]) => values.map((v) => v.toFixed(2)).join('/');
