/**
 * The webhook delivery thread (delivery-thread.ts, delivery-thread-source.ts): what it POSTs must be byte for byte
 * what core's signWebhookDelivery defines for the same envelope, profile, secrets, key and timestamp; the worker's
 * rounds must go through it (in commit order) and, when the thread cannot start or dies, through the main thread
 * instead, losing nothing; stop() must end a round on the thread after its attempt in flight.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import {
  canonicalJson,
  signingBytes,
  signWebhookDelivery,
  utf8Decode,
  WEBHOOK_CONTENT_TYPES,
  parseWebhookSecret,
  type WebhookProfile,
} from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeBody, envelopeMembers } from '../../src/services/webhooks/delivery-envelope.ts';
import { DeliveryThread, DeliveryThreadUnavailable } from '../../src/services/webhooks/delivery-thread.ts';
import { DELIVERY_THREAD_SOURCE } from '../../src/services/webhooks/delivery-thread-source.ts';
import { systemClock } from '../../src/clock.ts';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
const { privateKey } = generateKeyPairSync('ed25519');
const KEY_ID = 'ns:key:thread-test';
const signer = { keyId: KEY_ID, sign: async (m: Uint8Array) => new Uint8Array(sign(null, m, privateKey)) };

function envelope(n: number) {
  return {
    schema_version: 'ns.webhook.v1',
    event_id: `ns:event:0195c0de-aaaa-7bbb-8ccc-${String(n).padStart(12, '0')}`,
    event_type: 'ns.merchant.created',
    occurred_at: '2026-11-24T01:59:59.000Z',
    actor_entity_id: null,
    subject_ref: `m-${n}`,
    reason_code: 'merchant_created',
    // members sorting after `signature`, nested ones named like top-level ones, non-ASCII text, an omitted member
    data: { merchant_id: `m-${n}`, display_name: 'Grocer «Ü» 🛒', subject_ref: 'x', zeta: [1, 2.5, { b: 1, a: 2 }] },
    unset: undefined,
    zz_last: true,
    delivery: { idempotency_key: `ns:event:${n}`, replayable: true },
  };
}

let rt: TestRuntime;
const receivers: WebhookReceiver[] = [];
const threads: DeliveryThread[] = [];
let merchants = 0;

async function inject(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  const res = await rt.app.inject({ method, url, headers: auth(), ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

async function receiverFor(profile: WebhookProfile, respond?: Parameters<typeof startReceiver>[0]) {
  const receiver = await startReceiver(respond);
  receivers.push(receiver);
  const created = await inject('POST', '/v1/webhook-endpoints', {
    url: receiver.url,
    profile,
    event_types: ['ns.merchant.created'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { receiver, id: created.body.endpoint_id as string };
}

async function merchantEvents(n: number): Promise<string[]> {
  const subjects: string[] = [];
  for (let i = 0; i < n; i++) {
    merchants += 1;
    const res = await inject('POST', '/v1/merchants', {
      id: `t-${merchants}`,
      display_name: 'T',
      category: '5411',
      jurisdiction: 'DE',
    });
    expect(res.status).toBe(201);
    subjects.push(`ns:merchant:t-${merchants}`);
  }
  return subjects;
}

async function disableAll(): Promise<void> {
  const all = await inject('GET', '/v1/webhook-endpoints?limit=500');
  for (const e of all.body.items) {
    await inject('POST', `/v1/webhook-endpoints/${encodeURIComponent(e.endpoint_id)}/disable`);
  }
}

const subjectOf = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { subject_ref: string }).subject_ref;

function thread(source?: string): DeliveryThread {
  const made = new DeliveryThread(source);
  threads.push(made);
  return made;
}

beforeAll(async () => {
  rt = await startTestRuntime({ config: { webhookAllowInsecure: true } });
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  for (const t of threads) await t.close();
  await rt?.close();
});

describe('envelopeMembers', () => {
  it('cuts the canonical JSON where the signature member goes, in one pass', () => {
    for (const env of [envelope(1), { a: 1 }, { z: 1 }, { signature: 'dropped', b: [] }]) {
      const { before, after } = envelopeMembers(env);
      const joined = `{${before}${before && after ? ',' : ''}${after}}`;
      expect(joined).toBe(utf8Decode(signingBytes(env)));
      const member = `"signature":{"algorithm":"ed25519","key_id":"k","signature":"s"}`;
      const signed = `{${[before, member, after].filter((s) => s).join(',')}}`;
      const { signature: _dropped, ...rest } = env as { signature?: unknown };
      expect(signed).toBe(canonicalJson({ ...rest, signature: { algorithm: 'ed25519', key_id: 'k', signature: 's' } }));
    }
  });
});

describe('DeliveryThread', () => {
  const cases: Array<[WebhookProfile, string[]]> = [
    ['shared_secret', [SECRET]],
    ['shared_secret', [SECRET, OLD_SECRET]], // a rotated secret: old and new sign side by side
    ['asymmetric', []],
    ['cose', []],
  ];
  for (const [profile, secrets] of cases) {
    it(`POSTs exactly core's signWebhookDelivery: ${profile}, ${secrets.length || 'no'} secret(s)`, async () => {
      const receiver = await startReceiver();
      receivers.push(receiver);
      const t = thread();
      const envelopes = [envelope(1), envelope(2), envelope(3)];
      const attempts = await Promise.all(
        envelopes.map(async (e) => ({ webhookId: e.event_id, body: (await envelopeBody(profile, e, signer)).body })),
      );
      const handle = t.deliver({
        pool: `test ${profile} ${secrets.length}`,
        url: receiver.url,
        address: '127.0.0.1',
        family: 4,
        profile,
        contentType: WEBHOOK_CONTENT_TYPES[profile],
        signingKey: { keyId: KEY_ID, privateKey },
        macKeys: secrets.map((s) => parseWebhookSecret(s)),
        // the first attempt with the round, the rest appended (as the worker hands over bodies as they are made)
        attempts: attempts.slice(0, 1),
        last: false,
        timeoutMs: 5_000,
        maxBytes: 64 * 1024,
        settleEveryMs: 60_000,
        resignAfterS: 30,
        clock: systemClock,
        systemClock: true,
      });
      handle.append(attempts.slice(1), true);
      const outcomes = await handle.outcomes;
      expect(outcomes.map((o) => [o.status, o.error])).toEqual([
        [204, null],
        [204, null],
        [204, null],
      ]);
      expect(receiver.received).toHaveLength(3);
      for (const [i, got] of receiver.received.entries()) {
        const timestamp = Number(got.headers['webhook-timestamp']);
        const expected = await signWebhookDelivery({
          profile,
          webhookId: envelopes[i]!.event_id,
          timestamp,
          envelope: envelopes[i]!,
          signer,
          ...(profile === 'shared_secret' ? { secrets } : {}),
        });
        expect(Buffer.from(got.body).equals(Buffer.from(expected.body))).toBe(true);
        expect(got.headers['content-type']).toBe(expected.contentType);
        for (const [name, value] of Object.entries(expected.headers)) expect(got.headers[name]).toBe(value);
        expect(got.headers['user-agent']).toBe('aar-webhooks/1');
        expect(Math.abs(timestamp - Math.floor(outcomes[i]!.at / 1000))).toBeLessThanOrEqual(1);
      }
    });
  }

  it('refuses a round it cannot sign, naming no key or secret', async () => {
    const t = thread();
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const handle = t.deliver({
      pool: 'refuse',
      url: 'http://127.0.0.1:9/hook',
      address: '127.0.0.1',
      family: 4,
      profile: 'shared_secret',
      contentType: 'application/json',
      signingKey: { keyId: KEY_ID, privateKey: ec },
      macKeys: [parseWebhookSecret(SECRET)],
      attempts: [{ webhookId: 'ns:event:1', body: new Uint8Array(8) }],
      last: true,
      timeoutMs: 1_000,
      maxBytes: 1_024,
      settleEveryMs: 1_000,
      resignAfterS: 30,
      clock: systemClock,
      systemClock: true,
    });
    const error = await handle.outcomes.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeliveryThreadUnavailable);
    expect(String(error)).toMatch(/not an ed25519 key/);
    expect(String(error)).not.toContain(SECRET.slice(6, 20));
  });
});

describe('the worker on the delivery thread', () => {
  it('makes its rounds there: every event once, in commit order', async () => {
    const { receiver } = await receiverFor('asymmetric');
    const subjects = await merchantEvents(50);
    const t = thread();
    // rounds of 45 and 5: the first handed over as 4 attempts, then chunks of 32 and 9
    const worker = new WebhookWorker(rt.ctx, { deliveryThread: t, batchSize: 45 });
    await worker.drain();
    await worker.stop();
    expect(receiver.received.map((d) => subjectOf(d.body))).toEqual(subjects);
    expect(t.rounds).toBe(2);
    expect(t.available).toBe(true);
    await disableAll();
  });

  it('falls back to the main thread when the thread cannot start', async () => {
    const { receiver } = await receiverFor('shared_secret');
    const subjects = await merchantEvents(5);
    const t = thread('throw new Error("cannot start")');
    const worker = new WebhookWorker(rt.ctx, { deliveryThread: t });
    await worker.drain();
    await worker.stop();
    expect(t.available).toBe(false);
    expect(t.rounds).toBe(0);
    expect(receiver.received.map((d) => subjectOf(d.body))).toEqual(subjects);
    await disableAll();
  });

  it('falls back to the main thread when the thread dies mid-round: every event at least once, same ids', async () => {
    const { receiver, id } = await receiverFor('asymmetric');
    const subjects = await merchantEvents(6);
    // the thread exits once its first attempt is under way
    const dying = `${DELIVERY_THREAD_SOURCE}
      parentPort.on('message', (m) => { if (m.type === 'round') setTimeout(() => process.exit(3), 20); });`;
    const t = thread(dying);
    const slowFirst = new WebhookWorker(rt.ctx, { deliveryThread: t });
    receiver.respond = (_req, res) => setTimeout(() => res.writeHead(204).end(), 100);
    await slowFirst.drain();
    await slowFirst.stop();
    expect(t.available).toBe(false);
    const ids = receiver.received.map((d) => d.headers['webhook-id']);
    const firstSeen = [...new Set(receiver.received.map((d) => subjectOf(d.body)))];
    expect(firstSeen).toEqual(subjects);
    // a redelivery carries the webhook-id of the first delivery
    expect(new Set(ids).size).toBe(6);
    const log = (await inject('GET', `/v1/webhook-endpoints/${encodeURIComponent(id)}/deliveries?limit=100`)).body
      .items as Array<{ status: string }>;
    expect(log.filter((d) => d.status === 'succeeded')).toHaveLength(6);
    await disableAll();
  });

  it('stop() ends a round on the thread after the attempt in flight; the rest stay pending', async () => {
    let arrived = 0;
    let onFirst: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (onFirst = resolve));
    const { receiver, id } = await receiverFor('asymmetric', (_req, res) => {
      arrived += 1;
      if (arrived === 1) onFirst();
      setTimeout(() => res.writeHead(204).end(), 50);
    });
    await merchantEvents(10);
    const t = thread();
    const worker = new WebhookWorker(rt.ctx, { deliveryThread: t, settleEveryMs: 60_000 });
    await worker.start();
    await first;
    await worker.stop();
    const made = receiver.received.length;
    expect(made).toBeGreaterThanOrEqual(1);
    expect(made).toBeLessThan(10);
    const log = (await inject('GET', `/v1/webhook-endpoints/${encodeURIComponent(id)}/deliveries?limit=100`)).body
      .items as Array<{ status: string }>;
    expect(log.filter((d) => d.status === 'succeeded')).toHaveLength(made);
    expect(log.filter((d) => d.status === 'pending')).toHaveLength(10 - made);
    await disableAll();
  });
});
