/**
 * The webhook endpoints API: the SSRF guard at registration and at delivery (every target of SECURITY.md, with an
 * injected resolver), secret rotation, enable/disable, filters, replay and bad input. Deliveries go to real
 * receivers on 127.0.0.1 where the test allows it; the worker is driven by drain() with a clock the test moves.
 */
import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { AppContext } from '../../src/app-context.ts';
import type { ResolvedAddress } from '../../src/services/webhooks/target-guard.ts';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const clock = new SteppingClock();
/** the injected DNS: name -> addresses */
const dns = new Map<string, string[]>([
  ['public.example.test', ['93.184.216.34']],
  ['loopback.example.test', ['127.0.0.1']],
  ['mixed.example.test', ['93.184.216.34', '10.0.0.7']],
  ['metadata.example.test', ['169.254.169.254']],
  ['v6-loopback.example.test', ['::1']],
  ['rebinding.example.test', ['93.184.216.34']],
]);
const resolveHost = async (name: string): Promise<ResolvedAddress[]> => {
  const found = dns.get(name);
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let rt: TestRuntime;
let strictCtx: AppContext;
let strictApp: FastifyInstance;
let insecureWorker: WebhookWorker;
const receivers: WebhookReceiver[] = [];
let n = 0;

async function call(app: FastifyInstance, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Json) {
  const res = await app.inject({ method, url, headers: auth(), ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as Json) : ({} as Json) };
}
const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Json) =>
  call(rt.app, method, url, payload);
const path = (id: string, rest = '') => `/v1/webhook-endpoints/${encodeURIComponent(id)}${rest}`;

async function receiverEndpoint(body: Json): Promise<{ id: string; secret?: string; receiver: WebhookReceiver }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await api('POST', '/v1/webhook-endpoints', { url: receiver.url, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.endpoint_id, secret: created.body.secret, receiver };
}

async function merchant(): Promise<void> {
  n += 1;
  const res = await api('POST', '/v1/merchants', {
    id: `wm-${n}`,
    display_name: 'M',
    category: '5411',
    jurisdiction: 'DE',
  });
  expect(res.status).toBe(201);
}

const types = (r: WebhookReceiver) => r.received.map((d) => JSON.parse(d.body.toString('utf8')).event_type as string);

beforeAll(async () => {
  rt = await startTestRuntime({ clock, config: { webhookAllowInsecure: true } });
  insecureWorker = new WebhookWorker(rt.ctx, { timeoutMs: 2_000 });
  // the same store, as a production deployment sees it: no AAR_WEBHOOK_ALLOW_INSECURE, and our DNS
  strictCtx = { ...rt.ctx, config: { ...rt.ctx.config, webhookAllowInsecure: false }, resolveHost };
  strictApp = await buildApp(strictCtx);
});
afterAll(async () => {
  await insecureWorker?.stop();
  await strictApp?.close();
  for (const r of receivers) await r.close();
  await rt?.close();
});

describe('SSRF guard at registration (422 webhook_target_refused naming the reason, field /url)', () => {
  const cases: Array<[string, string]> = [
    ['https://127.0.0.1/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://0x7f000001/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'ipv4_mapped'],
    ['https://[::ffff:10.0.0.1]/', 'ipv4_mapped'],
    ['https://169.254.169.254/latest/meta-data/', 'link_local'],
    ['https://[fe80::1]/', 'link_local'],
    ['https://10.1.2.3/', 'private'],
    ['https://172.16.0.1/', 'private'],
    ['https://172.31.255.255/', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://100.64.0.1/', 'cgnat'],
    ['https://[fc00::1]/', 'unique_local'],
    ['https://[fd12:3456::1]/', 'unique_local'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://0.1.2.3/', 'unspecified'],
    ['https://[::]/', 'unspecified'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://255.255.255.255/', 'broadcast'],
    ['https://192.0.2.10/', 'reserved'],
    ['https://198.51.100.1/', 'reserved'],
    ['https://203.0.113.5/', 'reserved'],
    ['https://240.0.0.1/', 'reserved'],
    ['https://[2001:db8::1]/', 'reserved'],
    ['https://[64:ff9b::7f00:1]/', 'reserved'],
    ['https://good.com@127.0.0.1/', 'userinfo_not_allowed'],
    ['https://user:pass@public.example.test/', 'userinfo_not_allowed'],
    ['http://public.example.test/', 'scheme_not_allowed'],
    ['file:///etc/passwd', 'scheme_not_allowed'],
    ['gopher://public.example.test:70/_', 'scheme_not_allowed'],
    ['ftp://public.example.test/', 'scheme_not_allowed'],
    ['not a url', 'invalid_url'],
    ['https://loopback.example.test/', 'loopback'],
    ['https://v6-loopback.example.test/', 'loopback'],
    ['https://metadata.example.test/', 'link_local'],
    ['https://mixed.example.test/', 'private'],
    ['https://nowhere.example.test/', 'unresolvable'],
  ];
  it.each(cases)('%s is refused: %s', async (url, reason) => {
    const before = await rt.ctx.store.db.selectFrom('webhook_endpoints').select('endpoint_id').execute();
    const res = await call(strictApp, 'POST', '/v1/webhook-endpoints', { url, profile: 'asymmetric' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body).toMatchObject({ code: 'webhook_target_refused', reason });
    expect(res.body.errors[0].path).toBe('/url');
    expect(res.body.detail).toContain('/url');
    // nothing changed
    expect(await rt.ctx.store.db.selectFrom('webhook_endpoints').select('endpoint_id').execute()).toEqual(before);
  });

  it('a public https target is accepted, and a PATCH to a refused one is refused', async () => {
    const ok = await call(strictApp, 'POST', '/v1/webhook-endpoints', {
      url: 'https://public.example.test/hooks?token=t',
      profile: 'cose',
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const patched = await call(strictApp, 'PATCH', path(ok.body.endpoint_id), { url: 'https://[::1]:8443/' });
    expect(patched.status).toBe(422);
    expect(patched.body.reason).toBe('loopback');
    expect((await call(strictApp, 'GET', path(ok.body.endpoint_id))).body.url).toBe(
      'https://public.example.test/hooks?token=t',
    );
    await call(strictApp, 'DELETE', path(ok.body.endpoint_id));
  });
});

describe('SSRF guard at delivery', () => {
  it('a name that rebinds to loopback after registration is refused at delivery, no connection made', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const port = new URL(receiver.url).port;
    const created = await call(strictApp, 'POST', '/v1/webhook-endpoints', {
      url: `https://rebinding.example.test:${port}/hook`,
      profile: 'asymmetric',
      event_types: ['ns.merchant.created'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    dns.set('rebinding.example.test', ['127.0.0.1']);
    const strictWorker = new WebhookWorker(strictCtx, { timeoutMs: 2_000 });
    try {
      await merchant();
      await strictWorker.drain();
    } finally {
      await strictWorker.stop();
    }
    expect(receiver.received).toHaveLength(0);
    const log = (await call(strictApp, 'GET', path(created.body.endpoint_id, '/deliveries'))).body.items;
    expect(log[1]).toMatchObject({ status: 'failed', response_status: null, error: 'target_refused: loopback' });
    await call(strictApp, 'POST', path(created.body.endpoint_id, '/disable'));
  });
});

describe('secret rotation', () => {
  it('signs with old and new secrets for 24 h, then with the new one only', async () => {
    const {
      id,
      secret: oldSecret,
      receiver,
    } = await receiverEndpoint({
      profile: 'shared_secret',
      event_types: ['ns.merchant.created'],
    });
    const rotated = await api('POST', path(id, '/rotate-secret'));
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - clock.now().getTime()).toBeGreaterThan(
      24 * 3600 * 1000 - 5_000,
    );
    await merchant();
    await insecureWorker.drain();
    const during = receiver.received[0]!;
    const signatures = String(during.headers['webhook-signature']).split(' ');
    expect(signatures.filter((s) => s.startsWith('v1,'))).toHaveLength(2);
    // both secrets verify with the standardwebhooks library
    for (const s of [oldSecret!, newSecret]) {
      expect(() => new Webhook(s).verify(during.body.toString('utf8'), during.headers as never)).not.toThrow();
    }
    clock.advance(24 * 3600 + 1);
    await merchant();
    await insecureWorker.drain();
    const after = receiver.received[1]!;
    const afterSigs = String(after.headers['webhook-signature']).split(' ');
    expect(afterSigs).toHaveLength(1);
    const hmac = (secret: string) =>
      `v1,${createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
        .update(`${after.headers['webhook-id']}.${after.headers['webhook-timestamp']}.${after.body.toString('utf8')}`)
        .digest('base64')}`;
    expect(afterSigs[0]).toBe(hmac(newSecret));
    expect(afterSigs[0]).not.toBe(hmac(oldSecret!));
    expect((await api('GET', path(id))).body.previous_secret_expires_at).toBeNull();
    await api('POST', path(id, '/disable'));
  });

  it('an asymmetric endpoint has no secret to rotate (409)', async () => {
    const { id } = await receiverEndpoint({ profile: 'asymmetric', event_types: ['ns.merchant.created'] });
    expect((await api('POST', path(id, '/rotate-secret'))).status).toBe(409);
    await api('POST', path(id, '/disable'));
  });
});

describe('filters, enable/disable, replay', () => {
  it('filters with family wildcards and exact types take only what they name', async () => {
    const { id, receiver } = await receiverEndpoint({
      profile: 'asymmetric',
      event_types: ['ns.merchant.*', 'ns.entity.created'],
    });
    await merchant();
    await api('POST', '/v1/entities', { type: 'agent', id: `filter-agent-${n}`, display_name: 'A' });
    await api('POST', `/v1/entities/ns:entity:agent:filter-agent-${n}/suspend`);
    await insecureWorker.drain();
    expect(types(receiver).sort()).toEqual(['ns.entity.created', 'ns.merchant.created']);
    await api('POST', path(id, '/disable'));
  });

  it('refuses filters outside the catalogue or the pattern, naming the entry', async () => {
    for (const [filter, at] of [
      [['ns.merchant.created', 'ns.nosuchfamily.*'], '/event_types/1'],
      [['ns.merchant.nosuchtype'], '/event_types/0'],
      [['merchant.created'], '/event_types/0'],
      [['ns.*'], '/event_types/0'],
      [[], '/event_types'],
    ] as const) {
      const res = await api('POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/x',
        profile: 'asymmetric',
        event_types: filter,
      });
      expect(res.status, JSON.stringify(filter)).toBe(400);
      expect(res.body.errors[0].path).toBe(at);
    }
  });

  it('disabled endpoints get nothing; enabled again, they get what comes after', async () => {
    const { id, receiver } = await receiverEndpoint({ profile: 'asymmetric', event_types: ['ns.merchant.*'] });
    const disabled = await api('POST', path(id, '/disable'));
    expect(disabled.body).toMatchObject({ state: 'disabled', disabled_reason: 'admin' });
    await merchant();
    await insecureWorker.drain();
    expect(receiver.received).toHaveLength(0);
    const enabled = await api('POST', path(id, '/enable'));
    expect(enabled.body).toMatchObject({ state: 'enabled', disabled_reason: null });
    await insecureWorker.drain();
    expect(receiver.received).toHaveLength(0);
    await merchant();
    await insecureWorker.drain();
    expect(receiver.received).toHaveLength(1);
    const events = await rt.ctx.store.db
      .selectFrom('events')
      .select('event_type')
      .where('subject_ref', '=', id)
      .orderBy('seq')
      .execute();
    expect(events.map((e) => e.event_type)).toEqual([
      'ns.webhook.endpoint_created',
      'ns.webhook.endpoint_disabled',
      'ns.webhook.endpoint_enabled',
    ]);
    await api('POST', path(id, '/disable'));
  });

  it('replay re-queues exactly the events of the range, with the same webhook-id', async () => {
    const { id, receiver } = await receiverEndpoint({ profile: 'shared_secret', event_types: ['ns.merchant.*'] });
    const since = clock.now().toISOString();
    for (let i = 0; i < 3; i++) await merchant();
    clock.advance(60);
    const until = clock.now().toISOString();
    clock.advance(60);
    for (let i = 0; i < 2; i++) await merchant();
    await insecureWorker.drain();
    expect(receiver.received).toHaveLength(5);
    const firstThree = receiver.received.slice(0, 3).map((d) => d.headers['webhook-id']);
    const replay = await api('POST', path(id, '/replay'), { since, until });
    expect(replay.status, JSON.stringify(replay.body)).toBe(202);
    expect(replay.body.queued).toBe(3);
    await insecureWorker.drain();
    expect(receiver.received).toHaveLength(8);
    expect(receiver.received.slice(5).map((d) => d.headers['webhook-id'])).toEqual(firstThree);
    const log = (await api('GET', path(id, '/deliveries?limit=3'))).body;
    expect(log.items.map((d: Json) => [d.replay, d.status])).toEqual([
      [true, 'succeeded'],
      [true, 'succeeded'],
      [true, 'succeeded'],
    ]);
    expect(log.next_cursor).not.toBeNull();
    const older = (await api('GET', path(id, `/deliveries?limit=10&cursor=${log.next_cursor}`))).body.items;
    expect(older.map((d: Json) => d.replay)).toEqual([false, false, false, false, false]);
    // a replay filtered by type that matches nothing queues nothing
    const none = await api('POST', path(id, '/replay'), { since, until, event_types: ['ns.entity.created'] });
    expect(none.body.queued).toBe(0);
    const bad = await api('POST', path(id, '/replay'), { since: until, until: since });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/until');
    await api('POST', path(id, '/disable'));
  });
});

describe('the endpoints resource', () => {
  it('lists, reads, patches and deletes; bad input changes nothing', async () => {
    const { id } = await receiverEndpoint({
      profile: 'cose',
      description: 'ops',
    });
    const listed = await api('GET', '/v1/webhook-endpoints?limit=500');
    expect(listed.body.items.some((e: Json) => e.endpoint_id === id)).toBe(true);
    const patched = await api('PATCH', path(id), { description: null, event_types: ['ns.authority.revoked'] });
    expect(patched.body).toMatchObject({
      description: null,
      event_types: ['ns.authority.revoked'],
      connector_id: null, // connector-bound endpoints: test/api/connector-enforcement.test.ts
    });
    for (const body of [
      { url: 'http://127.0.0.1:1/', profile: 'hmac' },
      { url: 'http://127.0.0.1:1/', profile: 'cose', extra: 1 },
      { url: 'http://127.0.0.1:1/', profile: 'cose', connector_id: 'acme' },
      { profile: 'cose' },
    ]) {
      const res = await api('POST', '/v1/webhook-endpoints', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await api('PATCH', path(id), {})).status).toBe(400);
    expect((await api('GET', path('ns:webhook_endpoint:00000000-0000-7000-8000-000000000000'))).status).toBe(404);
    const deleted = await api('DELETE', path(id));
    expect(deleted.status).toBe(204);
    expect((await api('GET', path(id))).status).toBe(404);
    const runtime = await api('POST', '/v1/tokens', { role: 'runtime' });
    const asRuntime = await rt.app.inject({
      method: 'GET',
      url: '/v1/webhook-endpoints',
      headers: { authorization: `Bearer ${runtime.body.token}` },
    });
    expect(asRuntime.statusCode).toBe(403);
  });
});
