/**
 * One round of the rule-packs benchmark: a bounded closed-loop load (at most `amount` requests or `maxSeconds`,
 * whichever comes first) of freshly signed purchases against one `aar serve`, with the server process's CPU time
 * (/proc, all threads) read before and after. Checked like authorize-http: the store must have recorded allows only,
 * at least one per 2xx answer, and every sampled answer must be an allow whose decision map names exactly the packs
 * the round expects. One decision of the round is read back to check the facts its snapshot carries.
 */
import type { BenchWorld } from '../authorize-http/build-world.ts';
import { assertAllAllowed, createAnswerTally, isAllow, splitDecisions } from '../authorize-http/check-answers.ts';
import { countDecisions, settledDecisions } from '../authorize-http/count-decisions.ts';
import { readProcessCpuMs } from '../authorize-http/process-cpu.ts';
import { createRequestFeed, signRequestPool } from '../authorize-http/request-pool.ts';
import { runLoad, type LoadResult } from '../authorize-http/run-load.ts';
import type { AarServer } from '../authorize-http/start-servers.ts';
import { readDecision } from './policy-api.ts';

export interface RoundShape {
  connections: number;
  amount: number;
  maxSeconds: number;
  /** one answered body in this many is parsed and checked */
  sampleEvery: number;
}

export interface RoundExpectation {
  /** packs the decision map's policy node must name (0: no `packs` member at all) */
  packs: number;
  /** whether the recorded snapshot must carry `facts.counters` / `facts.local_time` */
  counters: boolean;
  localTime: boolean;
}

export interface RoundResult {
  result: LoadResult;
  /** allows the store recorded during the round */
  allowed: number;
  /** server CPU (user + system, all threads) during the round, ms */
  cpuMs: number | undefined;
  /** UTF-8 bytes of one recorded decision of the round as `GET /v1/decisions/{id}` serves it */
  recordBytes: number | undefined;
  /** the store's decisions before the round (the history the counters scan grows with it) */
  decisionsBefore: number;
}

/** Number of packs the decision map's policy node names; undefined when there is no policy node. */
export function packsInMap(map: unknown): number | undefined {
  const nodes = typeof map === 'object' && map !== null ? (map as { nodes?: unknown }).nodes : undefined;
  if (!Array.isArray(nodes)) return undefined;
  const policy = nodes.find((n) => typeof n === 'object' && n !== null && (n as { type?: unknown }).type === 'policy');
  if (!policy) return undefined;
  const packs = (policy as { packs?: unknown }).packs;
  return Array.isArray(packs) ? packs.length : 0;
}

export async function measureRound(
  aar: AarServer,
  world: BenchWorld,
  label: string,
  shape: RoundShape,
  expect: RoundExpectation,
): Promise<RoundResult> {
  const feed = createRequestFeed(await signRequestPool(world, shape.amount), 'once');
  let sampledId: string | undefined;
  const tally = createAnswerTally((body) => {
    if (!isAllow(body) || packsInMap(body.decision_map) !== expect.packs) return false;
    if (typeof body.policy_decision_id === 'string') sampledId = body.policy_decision_id;
    return true;
  });
  const before = countDecisions(aar.dataDir);
  const decisionsBefore = Object.values(before).reduce((n, c) => n + c, 0);
  const cpuBefore = readProcessCpuMs(aar.pid);
  const result = await runLoad({ base: aar.base, feed, ...shape, inspectBody: tally.inspect });
  const decisions = splitDecisions(before, await settledDecisions(aar.dataDir));
  const cpuAfter = readProcessCpuMs(aar.pid);
  assertAllAllowed(label, result.ok, decisions, tally);
  if (feed.overflow > 0) throw new Error(`${label}: the signed pool ran out (${feed.overflow} replays)`);
  let recordBytes: number | undefined;
  if (sampledId !== undefined) {
    const record = await readDecision(aar.base, world.runtimeToken, sampledId);
    recordBytes = Buffer.byteLength(JSON.stringify(record));
    checkFacts(label, record, expect);
  }
  return {
    result,
    allowed: decisions.allowed,
    cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
    recordBytes,
    decisionsBefore,
  };
}

function checkFacts(label: string, record: Record<string, unknown>, expect: RoundExpectation): void {
  const snapshot = (record.snapshot ?? {}) as {
    facts?: { counters?: unknown; local_time?: unknown };
    policy_set?: { packs?: unknown[] };
  };
  const packs = snapshot.policy_set?.packs?.length ?? 0;
  const counters = snapshot.facts?.counters !== undefined;
  const localTime = snapshot.facts?.local_time !== undefined;
  if (packs !== expect.packs || counters !== expect.counters || localTime !== expect.localTime) {
    throw new Error(
      `${label}: the recorded snapshot holds ${packs} packs, counters ${counters}, local time ${localTime}; expected ${JSON.stringify(expect)}`,
    );
  }
}
