/**
 * Marketplace listings over HTTP: registration (admin, write-once, with its event), refusals naming the field and
 * changing nothing, and the trust score moving with what it reads: a stored conformance report, the delivery record
 * of the endpoints bound to the listing's connector (counted as of the UTC hour), and the age of the evidence.
 * Filters, signatures and cross-instance bytes: test/storage/listings-search.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { answer, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const clock = { at: Date.parse('2026-11-24T10:20:00.000Z'), now: () => new Date(clock.at) };
const HOUR = 3_600_000;
let rt: TestRuntime;
let worker: WebhookWorker;
let receiver: WebhookReceiver;
let runtimeToken: string;

async function call(method: 'GET' | 'POST', url: string, payload?: Json, headers: Json = auth()) {
  const res = await rt.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, body: JSON.parse(res.body) as Json };
}
const component = (listing: Json, name: string) =>
  (listing.trust_score.components as Json[]).find((c) => c.name === name)!;
const listingCount = async () => (await rt.ctx.store.db.selectFrom('listings').select('seq').execute()).length;

const agent = (over: Json = {}): Json => ({
  kind: 'agent',
  title: 'Expense agent',
  publisher: { name: 'Example Agents', tier: 'community' },
  sectors: ['retail'],
  regimes: ['eu_ai_act'],
  jurisdictions: ['DE'],
  pricing_model: 'usage',
  ...over,
});

beforeAll(async () => {
  rt = await startTestRuntime({ clock, config: { webhookAllowInsecure: true } });
  worker = new WebhookWorker(rt.ctx, { timeoutMs: 2_000 });
  receiver = await startReceiver();
  runtimeToken = (await call('POST', '/v1/tokens', { role: 'runtime' })).body.token as string;
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await rt?.close();
});

describe('POST /v1/listings', () => {
  it('registers once, answers it signed and scored, and records ns.listing.registered', async () => {
    const created = await call('POST', '/v1/listings', agent({ listing_id: 'ns:listing:expense-agent' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      listing_id: 'ns:listing:expense-agent',
      registered_at: '2026-11-24T10:20:00.000Z',
      declared_profiles: [],
      signature: { algorithm: 'ed25519' },
    });
    expect(created.body.trust_score.computed_at).toBe('2026-11-24T10:00:00.000Z');
    // no connector: no declared controls, neutral operations, fresh evidence
    expect(component(created.body, 'security_posture').value).toBe(0);
    expect(component(created.body, 'operational_record').value).toBe(50);
    expect(created.body.trust_score.score).toBe(23);
    const read = await call('GET', '/v1/listings/ns:listing:expense-agent', undefined, auth(runtimeToken));
    expect(read.body).toEqual(created.body);

    const again = await call('POST', '/v1/listings', agent({ listing_id: 'ns:listing:expense-agent', title: 'v2' }));
    expect(again.status).toBe(409);
    expect(again.body.errors[0].path).toBe('/listing_id');

    const events = await call('GET', '/v1/events?limit=500');
    const registered = (events.body.items as Json[]).filter((e) => e.event_type === 'ns.listing.registered');
    expect(registered.map((e) => e.subject_ref)).toEqual(['ns:listing:expense-agent']);
    expect(registered[0]!.data).toEqual({
      kind: 'agent',
      publisher_tier: 'community',
      pricing_model: 'usage',
      connector_id: null,
      // commits the audit chain to the stored (signed at write) listing: audit/record-checks/check-listings.ts
      document_digest: expect.stringMatching(/^sha-256:[A-Za-z0-9_-]{43}$/),
    });
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const before = await listingCount();
    const cases: Array<[Json, number, string]> = [
      [agent({ kind: 'robot' }), 400, '/kind'],
      [agent({ sectors: ['Retail'] }), 400, '/sectors/0'],
      [agent({ jurisdictions: ['gb'] }), 400, '/jurisdictions/0'],
      [agent({ jurisdictions: ['DE', 'XX'] }), 400, '/jurisdictions/1'],
      [agent({ publisher: { name: 'x', tier: 'gold' } }), 400, '/publisher/tier'],
      [agent({ pricing_model: 'barter' }), 400, '/pricing_model'],
      [agent({ extra: 1 }), 400, '/extra'],
      [agent({ listing_id: 'expense' }), 400, '/listing_id'],
      [agent({ declared_profiles: ['ns.nothing.v1'] }), 400, '/declared_profiles/0'],
      [agent({ connector_id: 'ns:connector:payments:card-not-present-gateway' }), 400, '/connector_id'],
      [agent({ kind: 'connector' }), 400, '/connector_id'],
      [agent({ kind: 'connector', connector_id: 'ns:connector:payments:nope' }), 422, '/connector_id'],
      [agent({ kind: 'connector', connector_id: 'ns:connector:siem:legacy' }), 422, '/connector_id'],
      [
        agent({ conformance_report_id: 'ns:conformance_report:019a0000-0000-7000-8000-00000000dead' }),
        422,
        '/conformance_report_id',
      ],
      [agent({ conformance_report_id: 'report-1' }), 400, '/conformance_report_id'],
    ];
    for (const [body, status, path] of cases) {
      const res = await call('POST', '/v1/listings', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(
        res.body.errors.map((e: Json) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const forbidden = await call('POST', '/v1/listings', agent(), auth(runtimeToken));
    expect(forbidden.status).toBe(403);
    expect(await listingCount()).toBe(before);
  });

  it('reads: 404 for an unknown listing, 400 for a malformed id or search filter', async () => {
    expect((await call('GET', '/v1/listings/ns:listing:none')).status).toBe(404);
    expect((await call('GET', '/v1/listings/none')).body.errors[0].path).toBe('/params/id');
    for (const [query, path] of [
      ['min_score=101', '/query/min_score'],
      ['min_score=-1', '/query/min_score'],
      ['sector=Retail', '/query/sector'],
      ['publisher_tier=gold', '/query/publisher_tier'],
      ['jurisdiction=XX1', '/query/jurisdiction'],
      ['colour=red', '/query/colour'],
      ['limit=0', '/query/limit'],
      ['cursor=nope', '/query/cursor'],
    ] as const) {
      const res = await call('GET', `/v1/listings/search?${query}`);
      expect(res.status, query).toBe(400);
      expect(
        res.body.errors.map((e: Json) => e.path),
        query,
      ).toContain(path);
    }
  });
});

describe('the trust score reads what it says it reads', () => {
  it('the delivery record of endpoints bound to the connector, counted as of the hour', async () => {
    const listingId = 'ns:listing:reference.compliance.syslog-cef-forwarder';
    const ops = async () => component((await call('GET', `/v1/listings/${listingId}`)).body, 'operational_record');
    expect((await ops()).inputs).toMatchObject({ succeeded: 0, failed: 0 });

    const endpoint = await call('POST', '/v1/webhook-endpoints', {
      url: receiver.url,
      profile: 'shared_secret',
      connector_id: 'ns:connector:compliance:syslog-cef-forwarder',
    });
    expect(endpoint.status).toBe(201);
    // three subscribed events delivered, then two refused by the receiver
    for (let i = 0; i < 3; i += 1) await call('POST', '/v1/tokens', { role: 'auditor' });
    await worker.drain();
    await receiver.waitFor(3);
    receiver.respond = answer(500);
    for (let i = 0; i < 2; i += 1) await call('POST', '/v1/tokens', { role: 'auditor' });
    await worker.drain();
    await receiver.waitFor(5);

    // the attempts were made at 10:20: the score as of 10:00 does not see them yet, every instance alike
    expect((await ops()).inputs).toMatchObject({ succeeded: 0, failed: 0 });
    clock.at += HOUR;
    const counted = await ops();
    expect(counted.inputs).toMatchObject({ succeeded: 3, failed: 2, window_days: 30 });
    expect(counted.value).toBe(Math.floor((100 * 4) / 7));
    // 31 days later they have left the 30-day window
    clock.at += 31 * 24 * HOUR;
    expect((await ops()).inputs).toMatchObject({ succeeded: 0, failed: 0 });
  });

  it('evidence ages in whole days, to 0 after a year', async () => {
    const listing = (await call('GET', '/v1/listings/ns:listing:expense-agent')).body;
    const fresh = component(listing, 'evidence_freshness');
    // registered 2026-11-24T10:20; now 2026-12-25T11:20, so as of 11:00: 31 days and 40 minutes, 31 whole days
    expect(fresh.inputs.age_days).toBe(31);
    expect(fresh.value).toBe(100 - Math.floor((100 * 31) / 365));
    clock.at += 400 * 24 * HOUR;
    const old = (await call('GET', '/v1/listings/ns:listing:expense-agent')).body;
    expect(component(old, 'evidence_freshness').value).toBe(0);
    expect(old.trust_score.score).toBeLessThan(listing.trust_score.score);
  });
});
