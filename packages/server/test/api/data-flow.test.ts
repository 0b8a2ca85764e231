/**
 * The data-flow graph over HTTP (issue 30, docs/data-flow.md), on SQLite and PostgreSQL: a real webhook receiver
 * gets the events of signed purchases for two principals, an agent writes a memory record; each principal's
 * `ns.data_flow_graph.v1` verifies with the JWKS and its schema, names the agent (grants, decisions, memory by
 * classification) and the endpoint (events by family, as delivered), and never anything of the other principal.
 * Refusals: capability off, scope missing, another principal's graph, unknown or malformed principal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDocument, type Jwks } from '@aar/core';
import { WebhookWorker } from '../../src/workers/webhook-worker.ts';
import { testDialects } from '../support/dialects.ts';
import { createPerson, mintToken, startOptInRuntime, type OptInRuntime } from '../support/opt-in.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const dialects = await testDialects();
const ALICE = 'ns:entity:person:alice';
const BOB = 'ns:entity:person:bob';
const AGENT = 'ns:entity:agent:shopper-1';
/** a catalogue connector that subscribes to `ns.purchase_authority.denied` and verifies shared-secret signatures */
const SIEM = 'ns:connector:compliance:syslog-cef-forwarder';

interface Flow {
  recipient_kind: string;
  recipient_id: string;
  data_class: string;
  channel: string;
  count: number;
  first_at: string;
  last_at: string;
}

describe.each(dialects)('the data-flow graph on %s', (dialect) => {
  let rt: OptInRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let receiver: WebhookReceiver;
  let siemReceiver: WebhookReceiver;
  let siemEndpointId: string;
  let worker: WebhookWorker;
  let endpointId: string;
  let jwks: Jwks;
  let alice: string;
  let bob: string;
  let auditor: string;

  const graph = (principal: string, token: string) =>
    rt.call('GET', `/v1/data-flow/${encodeURIComponent(principal)}`, undefined, token);

  beforeAll(async () => {
    rt = await startOptInRuntime(['reports', 'memory'], { dialect, config: { webhookAllowInsecure: true } });
    receiver = await startReceiver();
    const endpoint = await rt.call('POST', '/v1/webhook-endpoints', {
      url: receiver.url,
      profile: 'shared_secret',
      event_types: ['ns.purchase_authority.allowed', 'ns.purchase_authority.denied'],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    endpointId = endpoint.body.endpoint_id;
    siemReceiver = await startReceiver();
    const siem = await rt.call('POST', '/v1/webhook-endpoints', {
      url: siemReceiver.url,
      profile: 'shared_secret',
      connector_id: SIEM,
    });
    expect(siem.status, JSON.stringify(siem.body)).toBe(201);
    siemEndpointId = siem.body.endpoint_id;
    worker = new WebhookWorker(rt.ctx, { pollMs: 100 });
    await worker.start();

    world = await buildPurchaseWorld(rt.base, ADMIN_TOKEN);
    jwks = (await rt.call('GET', '/.well-known/jwks.json')).body;
    await createPerson(rt.call, 'bob');
    await world.must('POST', '/v1/card-tokens', { id: 'tok-2', principal_entity_id: BOB, network_token: 'ntk_bob_1' });
    await world.must('POST', '/v1/grants', {
      principal_entity_id: BOB,
      actor_entity_id: AGENT,
      capability_id: 'ns:capability:payment_action:card_purchase',
      resource_id: 'ns:credential:card-token:tok-2',
      scope: {
        max_amount_per_purchase: { amount: 50, currency: 'EUR' },
        max_daily_amount: { amount: 100, currency: 'EUR' },
        valid_until: new Date(Date.now() + 365 * 86_400_000).toISOString(),
      },
    });
    expect((await world.authorize(world.purchase(12))).body.decision).toBe('allow_with_constraints');
    expect((await world.authorize(world.purchase(99))).body.decision).toBe('deny');
    const bobBuy = world.purchase(7, { principal_entity_id: BOB, scope: { instrument: 'ns:card_token:tok-2' } });
    expect((await world.authorize(bobBuy)).body.decision).toBe('allow_with_constraints');
    await receiver.waitFor(3, 20_000);

    // alice's agent remembers something under alice's grant
    const writer = await mintToken(rt.call, { role: 'runtime', scopes: ['memory.write'] });
    const text = JSON.stringify({
      agent_entity_id: AGENT,
      grant_id: world.grant.grant_id,
      classification: 'confidential',
      content: { note: 'prefers the afternoon delivery slot' },
    });
    const url = `${rt.base}/v1/memory/records`;
    const written = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${writer}`,
        'content-type': 'application/json',
        ...(await world.signer.sign({ method: 'POST', url, body: text })),
      },
      body: text,
    });
    expect(written.status).toBe(201);

    alice = await mintToken(rt.call, { role: 'principal', principal: ALICE, scopes: ['reports.read'] });
    bob = await mintToken(rt.call, { role: 'principal', principal: BOB, scopes: ['reports.read'] });
    auditor = await mintToken(rt.call, { role: 'auditor', scopes: ['reports.read'] });
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await siemReceiver?.close();
    await rt?.close();
  });

  /** The settle of a delivery is recorded just after the receiver answers: wait until the graph shows `ready`. */
  async function settledGraph(principal: string, token: string, ready: (flows: Flow[]) => boolean) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await graph(principal, token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      if (ready(res.body.flows as Flow[]) || Date.now() > deadline) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const delivered = (flows: Flow[], id: string, dataClass: string) =>
    flows.find((f) => f.recipient_id === id && f.data_class === dataClass)?.count ?? 0;

  it("shows alice's agent and webhook endpoint with her data classes, signed and schema-valid", async () => {
    const doc = await settledGraph(
      ALICE,
      alice,
      (f) =>
        delivered(f, endpointId, 'events:purchase_authority') >= 2 &&
        delivered(f, SIEM, 'events:purchase_authority') >= 1,
    );
    expectSchemaValid(doc);
    expect((await verifyDocument(doc, jwks)).valid).toBe(true);
    expect(doc.principal_entity_id).toBe(ALICE);
    const flows = doc.flows as Flow[];
    const of = (kind: string, id: string, dataClass: string) =>
      flows.find((f) => f.recipient_kind === kind && f.recipient_id === id && f.data_class === dataClass);
    expect(of('agent', AGENT, 'grants')).toMatchObject({ channel: 'grant', count: 1 });
    expect(of('agent', AGENT, 'decisions')).toMatchObject({ channel: 'authorize', count: 2 });
    expect(of('agent', AGENT, 'memory_records:confidential')).toMatchObject({ channel: 'memory', count: 1 });
    const hook = of('webhook_endpoint', endpointId, 'events:purchase_authority');
    expect(hook).toMatchObject({ channel: 'webhook', count: 2 });
    expect(hook!.first_at <= hook!.last_at).toBe(true);
    expect(doc.recipients).toEqual(
      expect.arrayContaining([
        { kind: 'agent', id: AGENT },
        {
          kind: 'webhook_endpoint',
          id: endpointId,
          endpoints: [{ endpoint_id: endpointId, url_origin: new URL(receiver.url).origin }],
        },
      ]),
    );
    // the endpoint bound to a connector shows as the connector, naming its endpoint
    expect(of('connector', SIEM, 'events:purchase_authority')).toMatchObject({ channel: 'webhook', count: 1 });
    expect(doc.recipients).toContainEqual({
      kind: 'connector',
      id: SIEM,
      endpoints: [{ endpoint_id: siemEndpointId, url_origin: new URL(siemReceiver.url).origin }],
    });
    expect(flows.some((f) => f.recipient_id === siemEndpointId)).toBe(false);
    // nothing of the memory content, and no URL path, is in the graph
    expect(JSON.stringify(doc)).not.toContain('afternoon');
    expect(JSON.stringify(doc)).not.toContain('/hook');
  });

  it("bob's graph holds bob's flows only", async () => {
    const doc = await settledGraph(BOB, bob, (f) => delivered(f, endpointId, 'events:purchase_authority') >= 1);
    const flows = doc.flows as Flow[];
    expect(flows.find((f) => f.data_class === 'decisions')).toMatchObject({ recipient_id: AGENT, count: 1 });
    expect(flows.filter((f) => f.data_class === 'events:purchase_authority')).toEqual([
      expect.objectContaining({ recipient_id: endpointId, count: 1 }),
    ]);
    expect(flows.some((f) => f.data_class.startsWith('memory_records'))).toBe(false);
    // the auditor reads the same
    const byAuditor = await graph(BOB, auditor);
    expect(byAuditor.status).toBe(200);
    expect(byAuditor.body.flows).toEqual(doc.flows);
  });

  it('refuses another principal, no scope, unknown and malformed principals', async () => {
    const other = await graph(ALICE, bob);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden');
    const noScope = await mintToken(rt.call, { role: 'auditor' });
    const missing = await graph(ALICE, noScope);
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('scope_missing');
    const runtime = await mintToken(rt.call, { role: 'runtime', scopes: ['reports.read'] });
    expect((await graph(ALICE, runtime)).status).toBe(403);
    expect((await graph('ns:entity:person:nobody', auditor)).status).toBe(404);
    const malformed = await graph('alice', auditor);
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toContain('/params/principal_entity_id');
    expect((await graph(AGENT, auditor)).status).toBe(400);
  });
});

describe('the data-flow graph without the capability', () => {
  let rt: OptInRuntime;
  beforeAll(async () => {
    rt = await startOptInRuntime(['search']);
  }, 120_000);
  afterAll(async () => rt?.close());

  it('is 403 capability_not_enabled, admin included', async () => {
    const res = await rt.call('GET', `/v1/data-flow/${encodeURIComponent(ALICE)}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('capability_not_enabled');
  });
});
