/**
 * How the worker cuts and signs its rounds (webhook-worker.ts): attempts are signed a few ahead of the one in
 * flight, a round is settled in one commit once it has run `settleEveryMs`, and an attempt signed ahead too long ago
 * (a slow receiver before it) is signed again at the time it is made. A receiver must see every event once, in
 * commit order, each with a timestamp of its own attempt, whatever the receiver's pace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESIGN_AFTER_S, WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { startReceiver, type Responder, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const clock = new SteppingClock();
let rt: TestRuntime;
const receivers: WebhookReceiver[] = [];
let merchants = 0;

async function inject(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  const res = await rt.app.inject({ method, url, headers: auth(), ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

/** Attempts settled so far (any endpoint). */
async function settledAttempts(): Promise<number> {
  const row = await rt.ctx.store.db
    .selectFrom('webhook_attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'succeeded')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * An endpoint whose receiver answers 204 after `onRequest` ran; returns it, the clock time of each request and how
 * many attempts were settled when it arrived.
 */
async function endpoint(onRequest: (n: number) => void) {
  const clockAt: number[] = [];
  const settledAt: number[] = [];
  const respond: Responder = (_req, res) => {
    clockAt.push(Math.floor(clock.now().getTime() / 1000));
    onRequest(clockAt.length);
    void settledAttempts().then((n) => {
      settledAt.push(n);
      res.writeHead(204).end();
    });
  };
  const receiver = await startReceiver(respond);
  receivers.push(receiver);
  const created = await inject('POST', '/v1/webhook-endpoints', {
    url: receiver.url,
    profile: 'asymmetric',
    event_types: ['ns.merchant.created'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.endpoint_id as string, receiver, clockAt, settledAt };
}

async function merchantEvents(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    merchants += 1;
    const res = await inject('POST', '/v1/merchants', {
      id: `r-${merchants}`,
      display_name: 'R',
      category: '5411',
      jurisdiction: 'DE',
    });
    expect(res.status).toBe(201);
    ids.push(`ns:merchant:r-${merchants}`);
  }
  return ids;
}

const merchantOf = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { subject_ref: string }).subject_ref;

async function disableAll(): Promise<void> {
  const all = await inject('GET', '/v1/webhook-endpoints?limit=500');
  for (const e of all.body.items) {
    await inject('POST', `/v1/webhook-endpoints/${encodeURIComponent(e.endpoint_id)}/disable`);
  }
}

beforeAll(async () => {
  rt = await startTestRuntime({ clock, config: { webhookAllowInsecure: true } });
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await rt?.close();
});

describe('worker rounds', () => {
  it('after an attempt runs out of time, the next one to the endpoint goes out on a fresh connection', async () => {
    const hanging: Array<{ destroy(): void }> = [];
    let requests = 0;
    const receiver = await startReceiver((_req, res) => {
      requests += 1;
      if (requests === 1) hanging.push(res);
      else res.writeHead(204).end();
    });
    receivers.push(receiver);
    const created = await inject('POST', '/v1/webhook-endpoints', {
      url: receiver.url,
      profile: 'shared_secret',
      event_types: ['ns.merchant.created'],
    });
    const id = created.body.endpoint_id as string;
    await merchantEvents(1);
    const worker = new WebhookWorker(rt.ctx, { timeoutMs: 300 });
    await worker.drain();
    clock.advance(5); // the first retry is due 5 s later
    await worker.drain();
    await worker.stop();
    for (const res of hanging) res.destroy();
    const log = (await inject('GET', `/v1/webhook-endpoints/${encodeURIComponent(id)}/deliveries`)).body
      .items as Array<{
      attempt: number;
      status: string;
      error: string | null;
    }>;
    expect(log.map((d) => [d.attempt, d.status, d.error])).toEqual([
      [2, 'succeeded', null],
      [1, 'failed', 'timeout'],
    ]);
    await disableAll();
  });

  it('a slow receiver cuts rounds short: every event once, in commit order, every attempt settled', async () => {
    // each request takes 2 s of the clock: with settleEveryMs 1 s, every round settles after one attempt
    const { id, receiver, settledAt } = await endpoint(() => clock.advance(2));
    const subjects = await merchantEvents(12);
    const before = await settledAttempts();
    const worker = new WebhookWorker(rt.ctx, { settleEveryMs: 1_000, timeoutMs: 5_000 });
    await worker.drain();
    await worker.stop();
    expect(receiver.received.map((d) => merchantOf(d.body))).toEqual(subjects);
    expect(new Set(receiver.received.map((d) => d.headers['webhook-id'])).size).toBe(12);
    const log = (await inject('GET', `/v1/webhook-endpoints/${encodeURIComponent(id)}/deliveries?limit=100`)).body
      .items as Array<{ status: string; attempt: number }>;
    expect(log).toHaveLength(12);
    expect(log.every((d) => d.status === 'succeeded' && d.attempt === 1)).toBe(true);
    // settled as it went, one round per attempt, not all at the end
    expect(settledAt.map((n) => n - before)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    await disableAll();
  });

  it('an attempt signed ahead and held back by a slow receiver is signed again when it is made', async () => {
    // the first request takes a minute of the clock; the rest were signed ahead at the old time
    const { receiver, clockAt } = await endpoint((n) => {
      if (n === 1) clock.advance(60);
    });
    const subjects = await merchantEvents(4);
    // a long lease: no renewal (which re-signs too) in the middle of the round
    const worker = new WebhookWorker(rt.ctx, { settleEveryMs: 3_600_000, leaseMs: 3_600_000, timeoutMs: 5_000 });
    await worker.drain();
    await worker.stop();
    expect(receiver.received.map((d) => merchantOf(d.body))).toEqual(subjects);
    const stamps = receiver.received.map((d) => Number(d.headers['webhook-timestamp']));
    // every attempt carries a timestamp close to the time it was made, never the one signed ahead a minute before
    stamps.forEach((stamp, i) => expect(clockAt[i]! - stamp).toBeLessThanOrEqual(RESIGN_AFTER_S));
    expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(60);
    await disableAll();
  });
});
