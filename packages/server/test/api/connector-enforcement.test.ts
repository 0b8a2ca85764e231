/**
 * What a connector manifest enforces over HTTP (CONTRACT section 15): credentials bound to a connector, the
 * `requires_idempotency` rule on their POSTs, and webhook endpoints bound to a connector, which receive exactly the
 * manifest's `events.subscribes_to` and only in a signing profile the connector verifies. Refusals change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findConnector } from '../../src/services/connectors/connector-catalogue.ts';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** money mover: requires signatures (asymmetric, cose only), idempotency and audit */
const GATEWAY = 'ns:connector:payments:iso8583-authorisation-hook';
/** SIEM: verifies signatures (shared_secret only), does not require idempotency */
const SIEM = 'ns:connector:compliance:syslog-cef-forwarder';
const DEPRECATED = 'ns:connector:compliance:object-storage-audit-export';

let rt: TestRuntime;
let worker: WebhookWorker;
const receivers: WebhookReceiver[] = [];
let n = 0;

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Json, headers: Json = auth()) {
  const res = await rt.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as Json) : ({} as Json) };
}

async function token(body: Json): Promise<string> {
  const res = await call('POST', '/v1/tokens', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token as string;
}

const merchant = () => {
  n += 1;
  return { id: `ce-${n}`, display_name: 'M', category: '5411', jurisdiction: 'DE' };
};
const count = async (table: 'api_tokens' | 'webhook_endpoints' | 'merchants') =>
  (await rt.ctx.store.db.selectFrom(table).select('seq').execute()).length;

beforeAll(async () => {
  rt = await startTestRuntime({ config: { webhookAllowInsecure: true } });
  worker = new WebhookWorker(rt.ctx, { timeoutMs: 2_000 });
});
afterAll(async () => {
  await worker?.stop();
  for (const r of receivers) await r.close();
  await rt?.close();
});

describe('credentials bound to a connector', () => {
  it('binds a token to a catalogue connector and shows it; refuses unknown, malformed and deprecated ids', async () => {
    const created = await call('POST', '/v1/tokens', { role: 'admin', connector_id: GATEWAY, label: 'gw' });
    expect(created.status).toBe(201);
    expect(created.body.connector_id).toBe(GATEWAY);
    const listed = await call('GET', '/v1/tokens?limit=500');
    expect(listed.body.items.find((t: Json) => t.token_id === created.body.token_id).connector_id).toBe(GATEWAY);

    const before = await count('api_tokens');
    const cases: Array<[Json, number, string, string]> = [
      [{ role: 'runtime', connector_id: 'ns:connector:payments:nope' }, 422, 'reference_not_found', '/connector_id'],
      [{ role: 'runtime', connector_id: DEPRECATED }, 422, 'reference_invalid', '/connector_id'],
      [{ role: 'runtime', connector_id: 'acme' }, 400, 'invalid_request', '/connector_id'],
    ];
    for (const [body, status, code, path] of cases) {
      const res = await call('POST', '/v1/tokens', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code).toBe(code);
      expect(res.body.errors.map((e: Json) => e.path)).toContain(path);
    }
    expect(await count('api_tokens')).toBe(before);
  });

  it('requires_idempotency: a POST without Idempotency-Key is 400 idempotency_key_required and changes nothing', async () => {
    expect(findConnector(GATEWAY)?.risk.requires_idempotency).toBe(true);
    const bound = await token({ role: 'admin', connector_id: GATEWAY });
    const before = await count('merchants');
    const refused = await call('POST', '/v1/merchants', merchant(), auth(bound));
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('idempotency_key_required');
    expect(refused.body.errors).toEqual([{ path: '/headers/idempotency-key', message: expect.any(String) }]);
    expect(await count('merchants')).toBe(before);

    // with a key the same request goes through, and replays as usual
    const body = merchant();
    const headers = { ...auth(bound), 'idempotency-key': 'ce-key-1' };
    const first = await call('POST', '/v1/merchants', body, headers);
    expect(first.status).toBe(201);
    const again = await call('POST', '/v1/merchants', body, headers);
    expect(again).toEqual(first);
    expect(await count('merchants')).toBe(before + 1);
    // reads need no key
    expect((await call('GET', '/v1/merchants', undefined, auth(bound))).status).toBe(200);
  });

  it('a connector that does not require idempotency, and an unbound credential, POST without a key', async () => {
    expect(findConnector(SIEM)?.risk.requires_idempotency).toBe(false);
    const siem = await token({ role: 'admin', connector_id: SIEM });
    expect((await call('POST', '/v1/merchants', merchant(), auth(siem))).status).toBe(201);
    const plain = await token({ role: 'admin' });
    expect((await call('POST', '/v1/merchants', merchant(), auth(plain))).status).toBe(201);
  });
});

describe('webhook endpoints bound to a connector', () => {
  async function receiver(): Promise<WebhookReceiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  it('refuses a signing profile the connector does not verify (422 naming /profile), and a different filter', async () => {
    const r = await receiver();
    const before = await count('webhook_endpoints');
    const wrongProfile = await call('POST', '/v1/webhook-endpoints', {
      url: r.url,
      profile: 'shared_secret',
      connector_id: GATEWAY,
    });
    expect(wrongProfile.status).toBe(422);
    expect(wrongProfile.body.code).toBe('reference_invalid');
    expect(wrongProfile.body.errors[0].path).toBe('/profile');
    const wrongFilter = await call('POST', '/v1/webhook-endpoints', {
      url: r.url,
      profile: 'cose',
      connector_id: GATEWAY,
      event_types: ['ns.authority.revoked'],
    });
    expect(wrongFilter.status).toBe(422);
    expect(wrongFilter.body.errors[0].path).toBe('/event_types');
    for (const [body, path] of [
      [{ url: r.url, profile: 'cose', connector_id: 'ns:connector:risk:nope' }, '/connector_id'],
      [{ url: r.url, profile: 'shared_secret', connector_id: DEPRECATED }, '/connector_id'],
    ] as const) {
      const res = await call('POST', '/v1/webhook-endpoints', body);
      expect(res.status).toBe(422);
      expect(res.body.errors[0].path).toBe(path);
    }
    expect(await count('webhook_endpoints')).toBe(before);

    // a connector that does not require verification takes any profile
    const ticketing = 'ns:connector:operations:issue-tracker';
    expect(findConnector(ticketing)?.risk.requires_signature_verification).toBe(false);
    const lenient = await call('POST', '/v1/webhook-endpoints', {
      url: r.url,
      profile: 'cose',
      connector_id: ticketing,
    });
    expect(lenient.status).toBe(201);
    // the manifest's own list, in any order, is accepted
    const subscribed = [...findConnector(GATEWAY)!.events.subscribes_to].reverse();
    const same = await call('POST', '/v1/webhook-endpoints', {
      url: r.url,
      profile: 'asymmetric',
      connector_id: GATEWAY,
      event_types: subscribed,
    });
    expect(same.status).toBe(201);
  });

  it('receives exactly the manifest’s events.subscribes_to; PATCH cannot change the filter', async () => {
    const manifest = findConnector(SIEM)!;
    const r = await receiver();
    const created = await call('POST', '/v1/webhook-endpoints', {
      url: r.url,
      profile: 'shared_secret',
      connector_id: SIEM,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.event_types).toEqual(manifest.events.subscribes_to);
    const id = encodeURIComponent(created.body.endpoint_id as string);
    const patched = await call('PATCH', `/v1/webhook-endpoints/${id}`, { event_types: null });
    expect(patched.status).toBe(422);
    expect(patched.body.errors[0].path).toBe('/event_types');
    const narrowed = await call('PATCH', `/v1/webhook-endpoints/${id}`, { event_types: ['ns.credential.created'] });
    expect(narrowed.status).toBe(422);
    expect((await call('PATCH', `/v1/webhook-endpoints/${id}`, { description: 'siem' })).status).toBe(200);

    // events of several types, some subscribed (credential.*, risk.state_changed), some not (entity, merchant)
    const person = await call('POST', '/v1/entities', { type: 'person', display_name: 'P' });
    expect(person.status).toBe(201);
    await call('POST', '/v1/merchants', merchant());
    const t = await call('POST', '/v1/tokens', { role: 'auditor' });
    await call('DELETE', `/v1/tokens/${encodeURIComponent(t.body.token_id as string)}`);
    const risk = await call('POST', '/v1/risk-signals', { entity_id: person.body.entity_id, risk_state: 'elevated' });
    expect(risk.status, JSON.stringify(risk.body)).toBeLessThan(300);

    const feed = await call('GET', '/v1/events?limit=500');
    const after = (feed.body.items as Json[]).filter((e) => e.occurred_at >= created.body.created_at);
    const expected = after.map((e) => e.event_type as string).filter((t) => manifest.events.subscribes_to.includes(t));
    expect(new Set(expected)).toEqual(
      new Set(['ns.credential.created', 'ns.credential.revoked', 'ns.risk.state_changed']),
    );
    expect(after.some((e) => !manifest.events.subscribes_to.includes(e.event_type as string))).toBe(true);

    await worker.drain();
    await r.waitFor(expected.length);
    await worker.drain();
    const got = r.received.map((d) => JSON.parse(d.body.toString('utf8')).event_type as string);
    expect(got).toEqual(expected);
  });
});
