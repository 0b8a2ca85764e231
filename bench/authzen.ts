/**
 * Issue 28: "AuthZEN single evaluation against authorize in the same run (the façade costs at most 5 % more), and a
 * batch of 50 against 50 single calls (decisions per second and CPU per decision)".
 * One `aar serve` (embedded SQLite, child process, as authorize-http) with signed requests required and a PEP URL
 * (AAR_PEP_URLS). Every request is signed by the agent before the clock starts, with its own nonce: for
 * POST /v1/runtime/authorize over the service's own URL; for the AuthZEN door over the gateway's URL, forwarded in
 * `context.agent_request` (so both verify one Ed25519 signature and record one allowed decision). Rounds alternate
 * (authorize, AuthZEN, AuthZEN, authorize, ...) in one process so a drift of the shared machine weighs on both alike.
 * CPU = the server process's user + system time (/proc) over a round ÷ the allows it recorded.
 * Then: 50 single evaluations (closed loop, CONNECTIONS in flight) against one `POST /access/v1/evaluations` of 50
 * items (BATCH_CONNECTIONS batches in flight), alternating too. Every answer is checked: an allow, or the run fails.
 */
import os from 'node:os';
import { createRequestSigner } from '@aar/sdk';
import { buildWorld } from './authorize-http/build-world.ts';
import { signRequestPool, type SignedRequest } from './authorize-http/request-pool.ts';
import type { Benchmark, BenchReport } from './lib/bench-report.ts';
import { startBenchServer } from './lib/bench-server.ts';
import {
  allowAuthorize,
  cpuMeasurement,
  failCheck,
  pooled,
  rateMeasurement,
  runRound,
  type Check,
  type Round,
} from './lib/cpu-rounds.ts';
const GATEWAY = 'https://gateway.bench.example';

const CONNECTIONS = 8;
const BATCH = 50;
const BATCH_CONNECTIONS = 2;
/** requests per single round; decisions per batch round = BATCHES_PER_ROUND × BATCH */
const ROUND_REQUESTS = Number(process.env.AAR_BENCH_AUTHZEN_ROUND ?? 400);
const BATCHES_PER_ROUND = Number(process.env.AAR_BENCH_AUTHZEN_BATCHES ?? 8);
const ROUNDS = Number(process.env.AAR_BENCH_AUTHZEN_ROUNDS ?? 3);
const WARMUP = Number(process.env.AAR_BENCH_AUTHZEN_WARMUP ?? 300);
/** issue 28: the façade costs at most this much CPU per decision over authorize */
export const GOAL_RATIO = 1.05;

export const authzenBench: Benchmark = {
  name: 'authzen',
  description:
    'the AuthZEN door over loopback HTTP (`aar serve`, SQLite): a purchase evaluation (POST /access/v1/evaluation, the agent signature forwarded in context.agent_request) against POST /v1/runtime/authorize, and a batch of 50 (POST /access/v1/evaluations) against 50 single evaluations; server CPU per allowed decision, alternating rounds in one run.',
  run: () => runAuthzenBench(),
};

export async function runAuthzenBench(
  options: { rounds?: number; roundRequests?: number; batches?: number; warmup?: number } = {},
): Promise<BenchReport> {
  const rounds = options.rounds ?? ROUNDS;
  const perRound = options.roundRequests ?? ROUND_REQUESTS;
  const batches = options.batches ?? BATCHES_PER_ROUND;
  const warmup = options.warmup ?? WARMUP;
  const loadAtStart = os.loadavg();
  const aar = await startBenchServer('authzen', { AAR_PEP_URLS: GATEWAY });
  try {
    const world = await buildWorld(aar.base, aar.adminToken);
    const pep = await createPepToken(aar);
    const agent = world.agents[0]!;
    const signer = createRequestSigner({ keyId: agent.keyId, privateJwk: agent.privateJwk });
    const evaluationOf = async (i: number) => {
      const agentBody = JSON.stringify({ checkout: i, amount: '1.00 EUR' });
      const url = `${GATEWAY}/checkout`;
      const headers = { ...(await signer.sign({ method: 'POST', url, body: agentBody })) };
      const body = agent.body as {
        actor_entity_id: string;
        principal_entity_id: string;
        resource: { merchant_id: string; amount: number; currency: string };
        scope: { instrument: string };
      };
      return {
        subject: { type: 'agent', id: body.actor_entity_id },
        action: { name: 'purchase.execute' },
        resource: { type: 'purchase', properties: { ...body.resource, instrument: body.scope.instrument } },
        context: {
          principal_entity_id: body.principal_entity_id,
          agent_request: { method: 'POST', target_uri: url, headers, body: agentBody },
        },
      };
    };
    const authzenRequests = async (n: number): Promise<SignedRequest[]> =>
      Promise.all(
        Array.from({ length: n }, async (_, i) => ({
          method: 'POST' as const,
          path: '/access/v1/evaluation',
          headers: { authorization: `Bearer ${pep}`, 'content-type': 'application/json' },
          body: JSON.stringify(await evaluationOf(i)),
        })),
      );
    const batchRequests = async (n: number): Promise<SignedRequest[]> =>
      Promise.all(
        Array.from({ length: n }, async () => ({
          method: 'POST' as const,
          path: '/access/v1/evaluations',
          headers: { authorization: `Bearer ${pep}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            evaluations: await Promise.all(Array.from({ length: BATCH }, (_, i) => evaluationOf(i))),
          }),
        })),
      );
    const allowOne: Check = (status, body) =>
      status === 200 && (body as { decision?: boolean }).decision === true ? 1 : failCheck(status, body);
    const allowMany: Check = (status, body) => {
      const items = (body as { evaluations?: Array<{ decision: boolean }> }).evaluations;
      if (status !== 200 || !items || items.length !== BATCH || items.some((e) => !e.decision))
        return failCheck(status, body);
      return items.length;
    };

    // warm-up: every path once through the JIT, untimed
    await runRound(aar, await signRequestPool(world, warmup), CONNECTIONS, allowAuthorize);
    await runRound(aar, await authzenRequests(warmup), CONNECTIONS, allowOne);
    await runRound(aar, await batchRequests(2), BATCH_CONNECTIONS, allowMany);

    const single: Record<'authorize' | 'authzen', Round[]> = { authorize: [], authzen: [] };
    const batch: Record<'singles' | 'batch', Round[]> = { singles: [], batch: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['authorize', 'authzen'] as const) : (['authzen', 'authorize'] as const);
      for (const which of order) {
        const requests =
          which === 'authorize' ? await signRequestPool(world, perRound) : await authzenRequests(perRound);
        single[which].push(
          await runRound(aar, requests, CONNECTIONS, which === 'authorize' ? allowAuthorize : allowOne),
        );
      }
      const batchOrder = r % 2 === 0 ? (['singles', 'batch'] as const) : (['batch', 'singles'] as const);
      for (const which of batchOrder) {
        batch[which].push(
          which === 'singles'
            ? await runRound(aar, await authzenRequests(batches * BATCH), CONNECTIONS, allowOne)
            : await runRound(aar, await batchRequests(batches), BATCH_CONNECTIONS, allowMany),
        );
      }
    }
    const loadAtEnd = os.loadavg();
    return report(single, batch, rounds, perRound, batches, [loadAtStart, loadAtEnd]);
  } finally {
    await aar.stop();
  }
}

function report(
  single: Record<'authorize' | 'authzen', Round[]>,
  batch: Record<'singles' | 'batch', Round[]>,
  rounds: number,
  perRound: number,
  batches: number,
  load: number[][],
): BenchReport {
  const facade = pooled(single.authzen).cpuMsPerDecision / pooled(single.authorize).cpuMsPerDecision;
  const pairs = single.authzen.map(
    (r, i) => r.cpuMs / r.decisions / (single.authorize[i]!.cpuMs / single.authorize[i]!.decisions),
  );
  const batchRatio = pooled(batch.batch).cpuMsPerDecision / pooled(batch.singles).cpuMsPerDecision;
  const fmt = (x: number) => x.toFixed(3);
  return {
    name: authzenBench.name,
    description: authzenBench.description,
    measurements: [
      cpuMeasurement('CPU per decision: single', 'POST /v1/runtime/authorize', single.authorize, true),
      cpuMeasurement('CPU per decision: single', 'POST /access/v1/evaluation', single.authzen, false),
      rateMeasurement('decisions per second: single', 'POST /v1/runtime/authorize', single.authorize, true),
      rateMeasurement('decisions per second: single', 'POST /access/v1/evaluation', single.authzen, false),
      cpuMeasurement('CPU per decision: batch', `${BATCH} × POST /access/v1/evaluation`, batch.singles, true),
      cpuMeasurement('CPU per decision: batch', `POST /access/v1/evaluations (${BATCH} items)`, batch.batch, false),
      rateMeasurement('decisions per second: batch', `${BATCH} × POST /access/v1/evaluation`, batch.singles, true),
      rateMeasurement(
        'decisions per second: batch',
        `POST /access/v1/evaluations (${BATCH} items)`,
        batch.batch,
        false,
      ),
    ],
    notes: [
      `façade CPU ÷ authorize CPU per allowed decision: ${fmt(facade)} pooled (goal ≤ ${GOAL_RATIO}); per round pair: ${pairs.map(fmt).join(', ')}`,
      `batch of ${BATCH} CPU ÷ single evaluations CPU per decision: ${fmt(batchRatio)}`,
      `${rounds} rounds per group, alternating; single rounds ${perRound} requests with ${CONNECTIONS} connections (closed loop); batch rounds ${batches} batches of ${BATCH} with ${BATCH_CONNECTIONS} in flight against ${batches * BATCH} single evaluations with ${CONNECTIONS}; CPU = the server's user + system time (/proc) over the round ÷ allowed decisions; mean ms = CPU ms per decision (CPU groups) or 1000 ÷ decisions per second (rate groups)`,
      'every request signed by the agent beforehand (RFC 9421, a nonce each): authorize over the service URL, the AuthZEN door over the gateway URL (AAR_PEP_URLS) forwarded in context.agent_request; 1.00 EUR at a grocer, every answer checked to be an allow',
      `load average (1/5/15 min) at start ${load[0]!.map((x) => x.toFixed(2)).join('/')}, at end ${load[1]!.map((x) => x.toFixed(2)).join('/')}`,
    ],
  };
}

async function createPepToken(aar: { base: string; adminToken: string }): Promise<string> {
  const res = await fetch(`${aar.base}/v1/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${aar.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'pep', label: 'bench gateway' }),
  });
  if (!res.ok) throw new Error(`POST /v1/tokens answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}
