/**
 * Issue 26: a shared_secret endpoint can be registered `disabled`, so the receiver stores its `whsec_` secret before
 * anything is sent. Nothing is queued or delivered while it is disabled (a real receiver on 127.0.0.1, the worker
 * drained); once enabled it receives the events committed from its enabling on, signed with that secret; the events
 * committed while it was disabled come only with a replay.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const clock = new SteppingClock();
let rt: TestRuntime;
let worker: WebhookWorker;
let receiver: WebhookReceiver;
let n = 0;

async function api(method: 'GET' | 'POST', url: string, payload?: Json) {
  const res = await rt.app.inject({ method, url, headers: auth(), ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, body: res.json<Json>() };
}

async function merchant(): Promise<string> {
  n += 1;
  const id = `disabled-m-${n}`;
  const res = await api('POST', '/v1/merchants', { id, display_name: 'M', category: '5411', jurisdiction: 'DE' });
  expect(res.status).toBe(201);
  return id;
}

const merchantIds = (r: WebhookReceiver) =>
  r.received.map((d) => (JSON.parse(d.body.toString('utf8')) as Json).subject_ref as string);

beforeAll(async () => {
  rt = await startTestRuntime({ clock, config: { webhookAllowInsecure: true } });
  worker = new WebhookWorker(rt.ctx, { timeoutMs: 2_000 });
  receiver = await startReceiver();
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await rt?.close();
});

describe('a webhook endpoint created disabled', () => {
  let endpointId: string;
  let secret: string;
  let createdAt: string;

  it('is registered disabled (reason admin) with its secret, and says so in its event', async () => {
    const created = await api('POST', '/v1/webhook-endpoints', {
      url: receiver.url,
      profile: 'shared_secret',
      event_types: ['ns.merchant.*'],
      state: 'disabled',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ state: 'disabled', disabled_reason: 'admin' });
    expect(created.body.secret).toMatch(/^whsec_/);
    endpointId = created.body.endpoint_id as string;
    secret = created.body.secret as string;
    createdAt = created.body.created_at as string;
    const event = await rt.ctx.store.db
      .selectFrom('events')
      .select('envelope')
      .where('subject_ref', '=', endpointId)
      .where('event_type', '=', 'ns.webhook.endpoint_created')
      .executeTakeFirstOrThrow();
    expect((JSON.parse(event.envelope) as Json).data.new_state).toBe('disabled');
  });

  it('gets nothing queued or delivered while disabled', async () => {
    await merchant();
    await merchant();
    clock.advance(1);
    await worker.drain();
    clock.advance(3600);
    await worker.drain();
    expect(receiver.received).toHaveLength(0);
    const log = await api('GET', `/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries`);
    expect(log.body.items).toEqual([]);
  });

  it('once enabled, receives the events from its enabling on, signed with the secret it was created with', async () => {
    clock.advance(1);
    const enabled = await api('POST', `/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/enable`);
    expect(enabled.body).toMatchObject({ state: 'enabled', disabled_reason: null });
    const after = await merchant();
    clock.advance(1);
    await worker.drain();
    await receiver.waitFor(1);
    expect(merchantIds(receiver)).toEqual([`ns:merchant:${after}`]);
    const delivery = receiver.received[0]!;
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const signed = `${String(delivery.headers['webhook-id'])}.${String(delivery.headers['webhook-timestamp'])}.`;
    const mac = createHmac('sha256', key).update(signed).update(delivery.body).digest('base64');
    expect(String(delivery.headers['webhook-signature']).split(' ')).toEqual([`v1,${mac}`]);
  });

  it('gets the events of its disabled time only with a replay', async () => {
    const replay = await api('POST', `/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/replay`, {
      since: createdAt,
    });
    expect(replay.status).toBe(202);
    clock.advance(1);
    await worker.drain();
    await receiver.waitFor(4);
    expect(merchantIds(receiver).slice(1).sort()).toEqual(
      ['ns:merchant:disabled-m-1', 'ns:merchant:disabled-m-2', 'ns:merchant:disabled-m-3'].sort(),
    );
  });

  it('refuses a state other than enabled or disabled (400 naming /state), creating nothing', async () => {
    const before = (await api('GET', '/v1/webhook-endpoints')).body.items.length as number;
    const res = await api('POST', '/v1/webhook-endpoints', {
      url: receiver.url,
      profile: 'shared_secret',
      state: 'paused',
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.errors)).toContain('/state');
    expect((await api('GET', '/v1/webhook-endpoints')).body.items.length).toBe(before);
  });
});
