/**
 * Issue 26: a card token is named `ns:card_token:<id>` (the card token) or `ns:credential:card-token:<id>` (its
 * credential, the form CONTRACT gives a grant's `resource_id`). Every place that names one takes both, and stores and
 * answers one canonical form per field: the decision, its record, its evidence pack and its replay are the same
 * whichever form came in (apart from the ids, times and signature inputs of each request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;

const TOKEN = 'ns:card_token:tok-1';
const CREDENTIAL = 'ns:credential:card-token:tok-1';

let rt: TestRuntime;
let world: World;

beforeAll(async () => {
  rt = await startTestRuntime();
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  world = await buildPurchaseWorld(base, ADMIN_TOKEN);
});
afterAll(async () => rt?.close());

/**
 * What differs between two requests whatever they carry: minted ids, times, nonces, digests and signatures of the
 * bytes sent, and the audit positions. Ids and times are replaced by placeholders, the rest dropped.
 */
const PER_REQUEST = /^(nonce|created|content_digest|signature|signature_input|inclusion_proof|checkpoint|digest|hash)$/;
const MINTED = /ns:[a-z_:-]+:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

function withoutPerRequest(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(MINTED, '<id>').replace(TIME, '<time>');
  if (Array.isArray(value)) return value.map(withoutPerRequest);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, member] of Object.entries(value as Json)) {
    if (!PER_REQUEST.test(key) && !key.endsWith('_hash')) out[key] = withoutPerRequest(member);
  }
  return out;
}

async function decide(instrument: string, amount: number) {
  const res = await world.authorize(world.purchase(amount, { scope: { instrument } }));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Json;
}

describe('a purchase names its card token either way', () => {
  it.each([
    [45, 'require_approval'],
    [60, 'deny'],
  ])('%d EUR: the same decision and record for both forms', async (amount, decision) => {
    const byToken = await decide(TOKEN, amount);
    const byCredential = await decide(CREDENTIAL, amount);
    expect(byToken.decision).toBe(decision);
    expect(withoutPerRequest(byCredential)).toEqual(withoutPerRequest(byToken));
    const [recordA, recordB] = await Promise.all(
      [byToken, byCredential].map(async (d) => (await world.call('GET', `/v1/decisions/${d.policy_decision_id}`)).body),
    );
    expect(recordA.request.instrument_id).toBe(TOKEN);
    expect(withoutPerRequest(recordB)).toEqual(withoutPerRequest(recordA));
  });

  it('an allowed purchase: the same request recorded, decision and evidence, and the pack replays', async () => {
    const decided: Json[] = [];
    for (const instrument of [TOKEN, CREDENTIAL]) {
      const d = await decide(instrument, 12);
      const record = (await world.call('GET', `/v1/decisions/${d.policy_decision_id}`)).body as Json;
      const packId = (d.evidence_refs as string[]).find((ref) => ref.startsWith('ns:evidence-pack:'))!;
      const pack = (await world.call('GET', `/v1/evidence-packs/${packId}`)).body as Json;
      decided.push({ d, record, pack });
    }
    const [a, b] = decided as [Json, Json];
    expect(b.d.decision).toBe('allow_with_constraints');
    expect(withoutPerRequest(b.record.request)).toEqual(withoutPerRequest(a.record.request));
    expect(b.record.request.instrument_id).toBe(TOKEN);
    expect(withoutPerRequest(b.d.obligations)).toEqual(withoutPerRequest(a.d.obligations));
    expect(JSON.stringify(b.pack)).toContain(`"instrument_id":"${TOKEN}"`);
    expect(JSON.stringify(b.pack)).not.toContain(`"instrument_id":"${CREDENTIAL}"`);
    const verified = (await world.call('POST', '/v1/evidence-packs/verify', { pack: b.pack })).body;
    expect(verified).toMatchObject({ valid: true });
  });
});

describe('a grant names its card token either way', () => {
  it('resource_id given as the card token is stored, signed and answered as its credential', async () => {
    await world.must('POST', '/v1/card-tokens', {
      id: 'tok-2',
      principal_entity_id: 'ns:entity:person:alice',
      network_token: 'ntk_alice_2',
    });
    const grants = [];
    for (const resource of ['ns:card_token:tok-2', 'ns:credential:card-token:tok-2']) {
      const created = await world.must('POST', '/v1/grants', {
        principal_entity_id: 'ns:entity:person:alice',
        actor_entity_id: 'ns:entity:agent:shopper-1',
        capability_id: 'ns:capability:payment_action:card_purchase',
        resource_id: resource,
        scope: {
          max_amount_per_purchase: { amount: 5, currency: 'EUR' },
          max_daily_amount: { amount: 5, currency: 'EUR' },
          valid_until: '2099-01-01T00:00:00Z',
        },
      });
      grants.push(created as Json);
    }
    for (const grant of grants) {
      expect(grant.resource_id).toBe('ns:credential:card-token:tok-2');
      const chain = (await world.call('GET', `/v1/grants/${grant.grant_id}/chain`)).body;
      expect(JSON.stringify(chain)).not.toContain('ns:card_token:tok-2"');
    }
  });

  it('a risk signal on the card token is the same signal under either name', async () => {
    const first = await world.call('POST', '/v1/risk-signals', { entity_id: CREDENTIAL, risk_state: 'elevated' });
    expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
    const second = await world.call('POST', '/v1/risk-signals', { entity_id: TOKEN, risk_state: 'normal' });
    expect(second.status).toBeLessThan(300);
    expect(second.body.entity_id).toBe(first.body.entity_id);
    expect(first.body.entity_id).toBe(TOKEN);
  });

  it('suspend and read by either name', async () => {
    const suspended = await world.call('POST', `/v1/card-tokens/${encodeURIComponent(CREDENTIAL)}/suspend`);
    expect(suspended.body).toMatchObject({ card_token_id: TOKEN, state: 'suspended' });
    const read = await world.call('GET', `/v1/card-tokens/${encodeURIComponent(TOKEN)}`);
    expect(read.body).toMatchObject({ card_token_id: TOKEN, credential_id: CREDENTIAL, state: 'suspended' });
    const denied = await decide(CREDENTIAL, 10);
    expect(denied).toMatchObject({ decision: 'deny', reason: 'instrument_inactive' });
    await world.call('POST', `/v1/card-tokens/${encodeURIComponent(TOKEN)}/activate`);
  });
});
