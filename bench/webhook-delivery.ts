/**
 * Webhook delivery (CONTRACT section 9): events delivered per second to a local receiver (node:http on 127.0.0.1,
 * answering 204) by the worker, per profile, against plain unsigned POSTs of the same envelope bodies to the same
 * receiver over the same kind of client (undici, one kept-alive connection, one request after the other: the worker
 * makes an endpoint's attempts in commit order, one at a time); and the time from a commit (the unit's promise
 * resolving) to the receiver holding the first attempt, with the worker woken by the write queue. Embedded default
 * (SQLite WAL, commits fdatasynced by the store before a unit resolves). Bounded: 4,000 events per profile, 200 latency samples; loopback only.
 * Fairness on a shared machine: both sides are warmed up first (JIT), and each profile's worker run sits between
 * two plain runs of its own bodies, whose combined rate is that profile's baseline, so a change of load during
 * the run moves both sides of a ratio alike.
 */
import os from 'node:os';
import { createServer } from 'node:http';
import { Agent, request } from 'undici';
import { startTestRuntime } from '../packages/server/test/support/test-runtime.ts';
import { createMerchant } from '../packages/server/src/services/merchants/create-merchant.ts';
import { createEndpoint } from '../packages/server/src/services/webhooks/create-endpoint.ts';
import { disableEndpoint } from '../packages/server/src/services/webhooks/set-endpoint-state.ts';
import { deliverAttempt } from '../packages/server/src/services/webhooks/deliver-attempt.ts';
import { loadEnvelopes } from '../packages/server/src/services/webhooks/delivery-bodies.ts';
import { sharedDeliveryThread } from '../packages/server/src/services/webhooks/delivery-thread.ts';
import { WebhookWorker } from '../packages/server/src/workers/webhook-worker.ts';
import type { Credential } from '../packages/server/src/http/fastify-types.ts';
import type { Benchmark, BenchReport, Measurement } from './lib/bench-report.ts';
import { keepCoresAwake, type AwakeCores } from './webhook-delivery/keep-cores-awake.ts';
import { startReceiverProcess } from './webhook-delivery/receiver-process.ts';
import { toMeasurement } from './revocation-cascade.ts';

export const EVENTS_PER_PROFILE = 4_000;
/** the actor of the bench's writes, as an admin token would be (every event names an actor: the catalogue says so) */
const BENCH_ADMIN: Credential = {
  token_id: 'ns:token:00000000-0000-4000-8000-0000000000be',
  role: 'admin',
  principal_entity_id: null,
  scopes: [],
};
export const LATENCY_SAMPLES = 200;
export const WARM_UP_EVENTS = 300;
const PROFILES = ['shared_secret', 'asymmetric', 'cose'] as const;
/** AAR_BENCH_WEBHOOK_THREAD=1: the worker signs and POSTs on the delivery thread (opt-in, delivery-thread.ts) */
const ON_THREAD = process.env.AAR_BENCH_WEBHOOK_THREAD === '1';
const workerOptions = ON_THREAD ? { deliveryThread: sharedDeliveryThread() } : {};

/** Where the bench POSTs: the receiver in this process, or in its own (receiver-process.ts). */
interface Target {
  /** appended to the group's name */
  label: string;
  url: string;
  /** requests the receiver has answered so far */
  count(): Promise<number>;
  /** the group runs with every core kept busy at the lowest priority (keep-cores-awake.ts) */
  awake?: boolean;
}

export async function runWebhookDelivery(
  events = EVENTS_PER_PROFILE,
  samples = LATENCY_SAMPLES,
  warmUp = WARM_UP_EVENTS,
): Promise<BenchReport> {
  const loadStart = os.loadavg();
  let received = 0;
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received += 1;
      const merchant = /"merchant_id":"(lat-\d+)"/.exec(Buffer.concat(chunks).toString('latin1'));
      if (merchant && !arrivals.has(merchant[1]!)) arrivals.set(merchant[1]!, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  const own = await startReceiverProcess();
  const targets: Target[] = [
    { label: '', url, count: () => Promise.resolve(received) },
    { label: ', receiver in its own process', url: own.url, count: () => own.count() },
    {
      label: ', receiver in its own process, cores kept awake',
      url: own.url,
      count: () => own.count(),
      awake: true,
    },
  ];
  let awake: AwakeCores | null = null;
  let awakePolicy = '';
  const rt = await startTestRuntime({ config: { webhookAllowInsecure: true } });
  const ctx = rt.ctx;
  const measurements: Measurement[] = [];
  let merchantNo = 0;
  /** writes n ns.merchant.created events (group commit) and returns their ids in commit order */
  const writeEvents = async (n: number, prefix = 'b'): Promise<string[]> => {
    const first = merchantNo + 1;
    await Promise.all(
      Array.from({ length: n }, () =>
        createMerchant(ctx, BENCH_ADMIN, {
          id: `${prefix}-${(merchantNo += 1)}`,
          display_name: 'Bench',
          category: '5411',
          jurisdiction: 'DE',
        }),
      ),
    );
    const subjects = Array.from({ length: n }, (_, i) => `ns:merchant:${prefix}-${first + i}`);
    const rows = await ctx.store.db
      .selectFrom('events')
      .select(['event_id', 'subject_ref'])
      .where('event_type', '=', 'ns.merchant.created')
      .where('subject_ref', 'in', subjects)
      .orderBy('seq')
      .execute();
    return rows.map((r) => r.event_id);
  };
  /** a fresh endpoint of `profile` for ns.merchant.created (its cursor starts at the events written after it) */
  const newEndpoint = (target: Target, profile: (typeof PROFILES)[number]) =>
    createEndpoint(ctx, BENCH_ADMIN, { url: target.url, profile, event_types: ['ns.merchant.created'] });
  /** the worker delivering everything due to `endpointId` (n events), then the endpoint disabled: ms */
  const drainTo = async (target: Target, endpointId: string, n: number): Promise<number> => {
    const worker = new WebhookWorker(ctx, workerOptions);
    const before = await target.count();
    const started = performance.now();
    await worker.drain();
    const ms = performance.now() - started;
    await worker.stop();
    await disableEndpoint(ctx, BENCH_ADMIN, endpointId);
    const delivered = (await target.count()) - before;
    if (delivered !== n) throw new Error(`${endpointId}: ${delivered} of ${n} delivered`);
    return ms;
  };
  /**
   * The same bodies, unsigned, POSTed one after another over one kept-alive connection: ms. `viaWorkerPath`: through
   * the worker's own exchange (deliverAttempt: undici's dispatch, the deadline, the capped read; the baseline of the
   * ratios), else through undici's `request()` (what the baseline was before the worker moved to dispatch: shown for
   * reference, never as a ratio's baseline)
   */
  const plainRun = async (target: Target, bodies: readonly Buffer[], viaWorkerPath = true): Promise<number> => {
    const agent = new Agent({ connections: 4, keepAliveTimeout: 4_000 });
    const headers = { 'content-type': 'application/json', 'user-agent': 'aar-webhooks/1' };
    const before = await target.count();
    const started = performance.now();
    for (const body of bodies) {
      if (viaWorkerPath) {
        const answer = await deliverAttempt(
          { url: target.url, body, headers },
          { dispatcher: agent, allowInsecure: true },
        );
        if (answer.status !== 204) throw new Error(`plain POST answered ${answer.status ?? answer.error}`);
      } else {
        const res = await request(target.url, { method: 'POST', dispatcher: agent, headers, body });
        await res.body.dump();
      }
    }
    const ms = performance.now() - started;
    await agent.close();
    if ((await target.count()) - before !== bodies.length) throw new Error('plain POSTs lost');
    return ms;
  };
  const bodiesOf = async (ids: readonly string[]): Promise<Buffer[]> => {
    const envelopes = await loadEnvelopes(ctx, ids);
    return ids.map((id) => Buffer.from(JSON.stringify(envelopes.get(id))));
  };
  try {
    // warm-up (not timed): every code path of both sides once, so neither is timed while the JIT compiles it
    for (const target of targets) {
      for (const profile of PROFILES) {
        const endpoint = await newEndpoint(target, profile);
        const ids = await writeEvents(warmUp);
        await drainTo(target, endpoint.endpoint_id, warmUp);
        await plainRun(target, await bodiesOf(ids));
        await plainRun(target, await bodiesOf(ids), false);
      }
    }
    const rates: Record<string, number> = {};
    const plainRates: Record<string, number> = {};
    for (const target of targets) {
      awake?.stop();
      awake = target.awake ? keepCoresAwake() : null;
      if (awake) awakePolicy = awake.policy;
      for (const profile of PROFILES) {
        const group = `deliver ${events.toLocaleString('en-US')} events, ${profile}${target.label}`;
        // plain before and after need the bodies before the worker runs: write the events, read them back, then
        // hand them to the worker (its fresh endpoint starts at the current cursor, so it is created first)
        const endpoint = await newEndpoint(target, profile);
        const ids = await writeEvents(events);
        const bodies = await bodiesOf(ids);
        const plainBefore = await plainRun(target, bodies);
        const ms = await drainTo(target, endpoint.endpoint_id, events);
        const plainAfter = await plainRun(target, bodies);
        const plainMs = (plainBefore + plainAfter) / 2;
        const requestApiMs = await plainRun(target, bodies, false);
        plainRates[group] = (events * 1000) / plainMs;
        rates[group] = (events * 1000) / ms;
        measurements.push(
          {
            group,
            name: "plain POST (unsigned, same bodies, the worker's exchange; runs before and after)",
            opsPerSecond: plainRates[group],
            meanMs: plainMs / events,
            samples: events * 2,
            baseline: true,
          },
          { group, name: `worker, ${profile}`, opsPerSecond: rates[group], meanMs: ms / events, samples: events },
          {
            group,
            name: "for reference: plain POST through undici's request() (the baseline before)",
            opsPerSecond: (events * 1000) / requestApiMs,
            meanMs: requestApiMs / events,
            samples: events,
          },
        );
      }
    }

    awake?.stop();
    awake = null;

    // commit to first attempt, the worker running as in aar serve
    const endpoint = await createEndpoint(ctx, BENCH_ADMIN, {
      url,
      profile: 'asymmetric',
      event_types: ['ns.merchant.created'],
    });
    const worker = new WebhookWorker(ctx, workerOptions);
    await worker.start();
    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      const id = `lat-${i}`;
      await createMerchant(ctx, BENCH_ADMIN, { id, display_name: 'L', category: '5411', jurisdiction: 'DE' });
      const committed = performance.now();
      const deadline = committed + 5_000;
      while (!arrivals.has(id)) {
        if (performance.now() > deadline) throw new Error(`${id} not delivered in 5 s`);
        await new Promise((r) => setImmediate(r));
      }
      latencies.push(Math.max(0, arrivals.get(id)! - committed));
    }
    await worker.stop();
    await disableEndpoint(ctx, BENCH_ADMIN, endpoint.endpoint_id);
    measurements.push(
      toMeasurement('commit to first attempt (asymmetric)', 'worker woken by the write queue', latencies),
    );

    const ratio = (p: string, label: string) => {
      const group = `deliver ${events.toLocaleString('en-US')} events, ${p}${label}`;
      return `${((rates[group]! / plainRates[group]!) * 100).toFixed(0)} %`;
    };
    const ratios = (label: string) =>
      `${ratio('shared_secret', label)} and ${ratio('asymmetric', label)}; cose ${ratio('cose', label)}`;
    return {
      name: 'webhook-delivery',
      description:
        'webhook worker: events/s delivered to a loopback receiver per profile vs plain unsigned POSTs of the same bodies; commit-to-first-attempt latency',
      measurements,
      notes: [
        `goals: shared_secret and asymmetric >= 50 % of the plain POST rate (got ${ratios('')} with the receiver in this process; ${ratios(targets[1]!.label)} with it in its own process; ${ratios(targets[2]!.label)} with it in its own process and every core kept awake); commit-to-first-attempt p50 < 100 ms`,
        `cores kept awake: a busy loop per core (${awakePolicy}) during those groups (bench/webhook-delivery/keep-cores-awake.ts), so neither side pays for waking an idle vCPU; without it, the plain POSTs to another process pay that on every exchange and the worker less often (its signing thread keeps a core busy)`,
        'worker rate = events / time of worker.drain(): fan-out, leases, envelope rebuild, signing (Ed25519 envelope signature in every profile, plus HMAC-SHA256 or Ed25519 or COSE_Sign1), POST, and settling the attempts in SQLite (WAL, the log fdatasynced by the store off the event loop)',
        `baseline per profile: the same ${events.toLocaleString('en-US')} bodies POSTed plain just before and just after the worker's run (mean of the two); warm-up first: ${warmUp} events per profile through the worker and as plain POSTs, not timed`,
        `events written before timing (createMerchant, group commit); receiver: node:http on 127.0.0.1 answering 204`,
        `rounds made ${ON_THREAD ? 'on the delivery thread (AAR_BENCH_WEBHOOK_THREAD=1)' : 'on the main thread (the default)'}`,
        `load average (1/5/15 min) at start ${loadStart.map((l) => l.toFixed(2)).join('/')}, at end ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join('/')}`,
      ],
    };
  } finally {
    awake?.stop();
    await rt.close();
    own.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

export const webhookDelivery: Benchmark = {
  name: 'webhook-delivery',
  description: 'webhook worker throughput per profile vs plain POSTs, and commit-to-first-attempt latency',
  run: () => runWebhookDelivery(),
};
