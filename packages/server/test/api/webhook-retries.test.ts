/**
 * Retries and receiver answers over real sockets, with a clock the test moves (no sleeping through the 5 s / 5 min
 * schedule): the worker is driven by drain(), which works until nothing is due at the clock's time.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { answer, startReceiver, type Responder, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const clock = new SteppingClock();
let rt: TestRuntime;
let worker: WebhookWorker;
const receivers: WebhookReceiver[] = [];
let merchantCount = 0;

async function inject(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const res = await rt.app.inject({
    method,
    url,
    headers: auth(),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

async function endpointFor(respond: Responder): Promise<{ id: string; receiver: WebhookReceiver }> {
  const receiver = await startReceiver(respond);
  receivers.push(receiver);
  const created = await inject('POST', '/v1/webhook-endpoints', {
    url: receiver.url,
    profile: 'asymmetric',
    event_types: ['ns.merchant.created'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.endpoint_id, receiver };
}

/** one ns.merchant.created event */
async function merchantEvent(): Promise<void> {
  merchantCount += 1;
  const res = await inject('POST', '/v1/merchants', {
    id: `m-${merchantCount}`,
    display_name: 'M',
    category: '5411',
    jurisdiction: 'DE',
  });
  expect(res.status).toBe(201);
}

const deliveries = async (id: string) =>
  (await inject('GET', `/v1/webhook-endpoints/${encodeURIComponent(id)}/deliveries`)).body.items as Array<
    Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
  >;

beforeAll(async () => {
  rt = await startTestRuntime({ clock, config: { webhookAllowInsecure: true } });
  worker = new WebhookWorker(rt.ctx, { timeoutMs: 500 });
});
afterEach(async () => {
  // only the endpoint under test works: disable the others
  const all = await inject('GET', '/v1/webhook-endpoints?limit=500');
  for (const e of all.body.items)
    await inject('POST', `/v1/webhook-endpoints/${encodeURIComponent(e.endpoint_id)}/disable`);
});
afterAll(async () => {
  await worker?.stop();
  for (const r of receivers) await r.close();
  await rt?.close();
});

describe('retries on the schedule', () => {
  it('500, 500, then 200: the same event three times with the same webhook-id, at +5 s and +5 min', async () => {
    const statuses = [500, 500, 200];
    const { id, receiver } = await endpointFor((_req, res) =>
      answer(statuses.shift() ?? 200)(_req, res, null as never),
    );
    await merchantEvent();
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    let log = await deliveries(id);
    expect(log.map((d) => [d.attempt, d.status])).toEqual([
      [2, 'pending'],
      [1, 'failed'],
    ]);
    const first = log[1]!;
    expect(first.response_status).toBe(500);
    expect(Date.parse(first.next_attempt_at) - Date.parse(first.attempted_at)).toBe(5_000);
    // not due yet: nothing is sent
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    clock.advance(5);
    await worker.drain();
    expect(receiver.received).toHaveLength(2);
    log = await deliveries(id);
    expect(Date.parse(log[1]!.next_attempt_at) - Date.parse(log[1]!.attempted_at)).toBe(300_000);
    clock.advance(300);
    await worker.drain();
    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((d) => d.headers['webhook-id']));
    expect(ids.size).toBe(1);
    // each attempt is signed at its own time
    expect(new Set(receiver.received.map((d) => d.headers['webhook-timestamp'])).size).toBe(3);
    log = await deliveries(id);
    expect(log.map((d) => [d.attempt, d.status, d.response_status])).toEqual([
      [3, 'succeeded', 200],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
  });

  it('10 failures exhaust the delivery and emit ns.webhook.delivery_exhausted', async () => {
    const { id, receiver } = await endpointFor(answer(503));
    await merchantEvent();
    await worker.drain();
    for (const delay of [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]) {
      clock.advance(delay);
      await worker.drain();
    }
    expect(receiver.received).toHaveLength(10);
    const log = await deliveries(id);
    expect(log[0]).toMatchObject({ attempt: 10, status: 'exhausted', next_attempt_at: null, response_status: 503 });
    const events = await rt.ctx.store.db
      .selectFrom('events')
      .select('envelope')
      .where('event_type', '=', 'ns.webhook.delivery_exhausted')
      .where('subject_ref', '=', id)
      .execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.envelope).data).toMatchObject({ endpoint_id: id, attempts: 10 });
    // nothing more is ever attempted
    clock.advance(200_000);
    await worker.drain();
    expect(receiver.received).toHaveLength(10);
  });

  it('Retry-After on 429 moves the next attempt to its time', async () => {
    const { id } = await endpointFor(answer(429, { 'retry-after': '120' }));
    await merchantEvent();
    await worker.drain();
    const [, first] = await deliveries(id);
    expect(first).toMatchObject({ status: 'failed', response_status: 429 });
    expect(Date.parse(first!.next_attempt_at) - Date.parse(first!.attempted_at)).toBe(120_000);
  });
});

describe('receiver answers', () => {
  it('410 disables the endpoint with ns.webhook.endpoint_disabled', async () => {
    const { id, receiver } = await endpointFor(answer(410));
    await merchantEvent();
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    const read = await inject('GET', `/v1/webhook-endpoints/${encodeURIComponent(id)}`);
    expect(read.body).toMatchObject({ state: 'disabled', disabled_reason: 'gone' });
    const events = await rt.ctx.store.db
      .selectFrom('events')
      .select(['envelope'])
      .where('event_type', '=', 'ns.webhook.endpoint_disabled')
      .where('subject_ref', '=', id)
      .execute();
    expect(events.map((e) => JSON.parse(e.envelope).reason_code)).toEqual(['endpoint_gone']);
    // disabled: later events are not delivered
    await merchantEvent();
    clock.advance(10);
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
  });

  it('a 302 is a failure and its Location is never followed', async () => {
    const elsewhere = await startReceiver();
    receivers.push(elsewhere);
    const { id, receiver } = await endpointFor(answer(302, { location: elsewhere.url }));
    await merchantEvent();
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    expect((await deliveries(id))[1]).toMatchObject({ status: 'failed', response_status: 302 });
  });

  it('a receiver that does not answer in time fails with `timeout`', async () => {
    const hanging: ServerResponse[] = [];
    const { id } = await endpointFor((_req, res) => void hanging.push(res));
    await merchantEvent();
    await worker.drain();
    expect((await deliveries(id))[1]).toMatchObject({ status: 'failed', response_status: null, error: 'timeout' });
    for (const res of hanging) res.destroy();
  });

  it('a receiver streaming an endless body is cut off after 64 KiB; the status decides', async () => {
    let written = 0;
    let closed = false;
    const { id } = await endpointFor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      const pump = () => {
        while (!closed && written < 512 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => (closed = true));
      pump();
    });
    await merchantEvent();
    await worker.drain();
    expect((await deliveries(id))[0]).toMatchObject({ status: 'succeeded', response_status: 200 });
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(true);
    // socket buffers hold a few MiB at most; an unbounded read would have taken all 512 MiB
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('an endpoint failing for 5 days is disabled (reason `failing`)', async () => {
    const { id } = await endpointFor(answer(500));
    await merchantEvent();
    await worker.drain();
    const first = await inject('GET', `/v1/webhook-endpoints/${encodeURIComponent(id)}`);
    expect(first.body.failing_since).not.toBeNull();
    clock.advance(5 * 24 * 3600);
    await merchantEvent();
    await worker.drain();
    const read = await inject('GET', `/v1/webhook-endpoints/${encodeURIComponent(id)}`);
    expect(read.body).toMatchObject({ state: 'disabled', disabled_reason: 'failing' });
    const reasons = (
      await rt.ctx.store.db
        .selectFrom('events')
        .select('envelope')
        .where('event_type', '=', 'ns.webhook.endpoint_disabled')
        .where('subject_ref', '=', id)
        .execute()
    ).map((e) => JSON.parse(e.envelope).reason_code);
    expect(reasons).toEqual(['endpoint_failing']);
  });
});
