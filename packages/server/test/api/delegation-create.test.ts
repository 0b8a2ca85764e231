/**
 * Sub-delegation through POST /v1/grants with `parent_grant_id`: attenuation field by field (every widening refused
 * with 422 scope_not_subset naming every offending field, and nothing written), inheritance, delegation limits,
 * cycles, unusable parents, the delegator's signature, and who may ask.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { ALICE, buildDelegationWorld, countState, type DelegationWorld } from '../support/delegation-world.ts';

const MIDDLE = {
  max_amount_per_purchase: { amount: 50, currency: 'EUR' },
  max_daily_amount: { amount: 100, currency: 'EUR' },
  allowed_merchant_categories: ['5411'],
};

describe('sub-delegation', () => {
  let rt: TestRuntime;
  let w: DelegationWorld;
  let middleId: string;
  const clock = new SteppingClock();

  beforeAll(async () => {
    rt = await startTestRuntime({ clock });
    w = await buildDelegationWorld(await rt.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN, clock);
    const res = await w.delegate(w.root.grant_id, 'concierge', 'ns:agent:planner', MIDDLE);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    middleId = res.body.grant_id;
  });
  afterAll(async () => rt?.close());

  it('creates a child that inherits what it omits, signed by the service and by its delegator', async () => {
    const res = await w.call('GET', `/v1/grants/${middleId}`);
    expect(res.body).toMatchObject({
      parent_grant_id: w.root.grant_id,
      principal_entity_id: ALICE,
      actor_entity_id: 'ns:entity:agent:planner',
      capability_id: w.root.capability_id,
      resource_id: w.root.resource_id,
      depth: 1,
      state: 'active',
      scope: MIDDLE,
    });
    expect(res.body.link).toMatchObject({
      schema_version: 'ns.authority_grant.v1',
      delegator_entity_id: 'ns:entity:agent:concierge',
      delegation: {
        statement: { schema_version: 'ns.delegation_statement.v1', delegator_entity_id: 'ns:entity:agent:concierge' },
        delegator_key: { kid: 'ns:entity:agent:concierge' },
      },
      signature: { algorithm: 'ed25519' },
    });
    const events = await w.call('GET', '/v1/events?event_type=ns.authority.delegated');
    expect(events.body.items.at(-1)).toMatchObject({
      subject_ref: middleId,
      reason_code: 'authority_delegated',
      data: { parent_grant_id: w.root.grant_id, delegator_signed: true, depth: 1 },
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'max_amount_per_purchase',
      { max_amount_per_purchase: { amount: 50.01, currency: 'EUR' } },
      '/scope/max_amount_per_purchase',
    ],
    ['max_daily_amount', { max_daily_amount: { amount: 100.5, currency: 'EUR' } }, '/scope/max_daily_amount'],
    [
      'requires_approval_above',
      { requires_approval_above: { amount: 81, currency: 'EUR' } },
      '/scope/requires_approval_above',
    ],
    ['currency', { max_daily_amount: { amount: 10, currency: 'USD' } }, '/scope/max_daily_amount/currency'],
    ['valid_until', { valid_until: '2099-01-01T00:00:00Z' }, '/scope/valid_until'],
    [
      'allowed_merchant_categories',
      { allowed_merchant_categories: ['5411', '5812'] },
      '/scope/allowed_merchant_categories',
    ],
    ['blocked_merchant_categories', { blocked_merchant_categories: ['5993'] }, '/scope/blocked_merchant_categories'],
    ['allowed_jurisdictions', { allowed_jurisdictions: ['DE', 'US'] }, '/scope/allowed_jurisdictions'],
    ['allowed_actions', { allowed_actions: ['purchase.refund_request'] }, '/scope/allowed_actions'],
    ['max_delegation_depth', { max_delegation_depth: 1 }, '/scope/max_delegation_depth'],
  ])('refuses a child wider in %s, naming it, and writes nothing', async (_field, scope, path) => {
    const before = await countState(rt.ctx);
    const res = await w.delegate(middleId, 'planner', 'ns:entity:agent:shopper-1', scope);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.code).toBe('scope_not_subset');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    expect(await countState(rt.ctx)).toEqual(before);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['capability', { capability_id: 'ns:capability:purchase:refund_request' }, '/capability_id'],
    ['instrument', { resource_id: 'ns:credential:card-token:tok-2' }, '/resource_id'],
    ['principal', { principal_entity_id: 'ns:entity:person:bob' }, '/principal_entity_id'],
  ])('refuses another or a wider %s, and writes nothing', async (_name, extra, path) => {
    const searchOnly = await w.delegate(
      w.root.grant_id,
      'concierge',
      'ns:entity:agent:helper',
      {},
      {
        extra: { capability_id: 'ns:capability:purchase:search' },
      },
    );
    expect(searchOnly.status, JSON.stringify(searchOnly.body)).toBe(201);
    const parent = path === '/capability_id' ? searchOnly.body.grant_id : middleId;
    const by = path === '/capability_id' ? 'helper' : 'planner';
    const before = await countState(rt.ctx);
    const res = await w.delegate(parent, by, 'ns:entity:agent:shopper-1', {}, { extra });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body).toMatchObject({ code: 'scope_not_subset', errors: [{ path }] });
    expect(await countState(rt.ctx)).toEqual(before);
    await w.must('POST', `/v1/grants/${searchOnly.body.grant_id}/revoke`);
  });

  it('names every offending field of one request at once', async () => {
    const res = await w.delegate(
      middleId,
      'planner',
      'ns:entity:agent:shopper-1',
      {
        max_amount_per_purchase: { amount: 99, currency: 'EUR' },
        valid_until: '2099-01-01T00:00:00Z',
        allowed_jurisdictions: ['US'],
        blocked_merchant_categories: [],
      },
      { extra: { resource_id: 'ns:credential:card-token:tok-2' } },
    );
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '/resource_id',
      '/scope/allowed_jurisdictions',
      '/scope/blocked_merchant_categories',
      '/scope/max_amount_per_purchase',
      '/scope/valid_until',
    ]);
  });

  it('refuses case variants at the edge: they are other values, never a wider match', async () => {
    const before = await countState(rt.ctx);
    for (const scope of [
      { allowed_jurisdictions: ['de'] },
      { max_daily_amount: { amount: 10, currency: 'eur' } },
      { allowed_merchant_categories: ['GROCERIES'] },
      { allowed_actions: ['PURCHASE.EXECUTE'] },
    ]) {
      const res = await w.delegate(middleId, 'planner', 'ns:entity:agent:shopper-1', scope);
      expect(res.status, JSON.stringify(scope)).toBe(400);
    }
    const upper = await w.delegate(middleId.toUpperCase(), 'planner', 'ns:entity:agent:shopper-1', {});
    expect(upper.status).toBe(400);
    expect(await countState(rt.ctx)).toEqual(before);
  });

  it('refuses cycles: the grantee may not already hold authority in the chain', async () => {
    for (const to of ['ns:entity:agent:concierge', 'ns:entity:agent:planner', ALICE]) {
      const res = await w.delegate(middleId, 'planner', to, {});
      expect(res.status, to).toBe(422);
      expect(res.body).toMatchObject({ code: 'reference_invalid', errors: [{ path: '/actor_entity_id' }] });
    }
  });

  it('enforces may_delegate and max_delegation_depth; a 10,000-link chain stops at the depth limit', async () => {
    const leaf = await w.delegate(middleId, 'planner', 'ns:entity:agent:shopper-1', { may_delegate: false });
    expect(leaf.status, JSON.stringify(leaf.body)).toBe(201);
    const below = await w.delegate(leaf.body.grant_id, 'shopper-1', 'ns:entity:agent:sibling', {});
    expect(below.status).toBe(422);
    expect(below.body).toMatchObject({ code: 'reference_invalid', errors: [{ path: '/parent_grant_id' }] });

    // the root allows two levels: planner's grant is the first, a grant below shopper-1's would be the third
    const third = await w.delegate(middleId, 'planner', 'ns:entity:agent:sibling', { may_delegate: true });
    expect(third.status).toBe(201);
    const fourth = await w.delegate(third.body.grant_id, 'sibling', 'ns:entity:agent:helper', {});
    expect(fourth.status).toBe(422);

    // an unbounded root: a chain grows until the service's depth limit, never to 10,000
    const agents: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await w.must('POST', '/v1/entities', { type: 'agent', id: `deep-${i}`, display_name: 'deep' });
      agents.push(res.entity_id);
    }
    let parent = (
      await w.must('POST', '/v1/grants', {
        principal_entity_id: ALICE,
        actor_entity_id: agents[0],
        capability_id: 'ns:capability:purchase:search',
        resource_id: 'ns:credential:card-token:tok-1',
        scope: { may_delegate: true },
      })
    ).grant_id as string;
    let created = 1;
    let refusal: { status: number; body: { code: string } } | undefined;
    for (let i = 1; i < 10_000; i++) {
      const res = await w.call('POST', '/v1/grants', { parent_grant_id: parent, actor_entity_id: agents[i] });
      if (res.status !== 201) {
        refusal = res;
        break;
      }
      parent = res.body.grant_id;
      created++;
    }
    expect(created).toBe(17); // the root and 16 delegations
    expect(refusal).toMatchObject({ status: 422, body: { code: 'reference_invalid' } });
  });

  it('refuses a revoked, an expired or a suspended parent', async () => {
    const revoked = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:helper', {});
    await w.must('POST', `/v1/grants/${revoked.body.grant_id}/revoke`);
    const underRevoked = await w.delegate(
      revoked.body.grant_id,
      'helper',
      'ns:entity:agent:sibling',
      {},
      { sign: false },
    );
    expect(underRevoked.body).toMatchObject({ code: 'reference_invalid', errors: [{ path: '/parent_grant_id' }] });

    await w.must('POST', '/v1/entities/ns:entity:agent:planner/suspend');
    const suspended = await w.delegate(middleId, 'planner', 'ns:entity:agent:sibling', {});
    expect(suspended.body).toMatchObject({ code: 'reference_invalid', errors: [{ path: '/parent_grant_id' }] });
    await w.must('POST', '/v1/entities/ns:entity:agent:planner/activate');

    const soon = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:helper', {
      valid_until: new Date(clock.now().getTime() + 60_000).toISOString(),
      may_delegate: true,
    });
    expect(soon.status).toBe(201);
    clock.advance(120);
    try {
      const expired = await w.delegate(soon.body.grant_id, 'helper', 'ns:entity:agent:sibling', {});
      expect(expired.body).toMatchObject({ code: 'reference_invalid', errors: [{ path: '/parent_grant_id' }] });
    } finally {
      clock.advance(-120);
    }
    const missing = await w.delegate(
      'ns:authority:grant:01963a4e-0000-7000-8000-000000000000',
      'planner',
      'ns:entity:agent:sibling',
      {},
    );
    expect(missing.body).toMatchObject({ code: 'reference_not_found', errors: [{ path: '/parent_grant_id' }] });
  });

  it("requires the delegator's signature over exactly this request, once, fresh, by its registered key", async () => {
    const request = { parent_grant_id: middleId, actor_entity_id: 'ns:entity:agent:sibling', scope: {} };
    const before = await countState(rt.ctx);
    const post = (body: unknown) => w.call('POST', '/v1/grants', body);

    expect((await post(request)).body).toMatchObject({
      code: 'invalid_request',
      errors: [{ path: '/delegator_proof' }],
    });
    const other = await w.proofFor('planner', { ...request, actor_entity_id: 'ns:entity:agent:helper' });
    expect((await post({ ...request, delegator_proof: other })).body.code).toBe('invalid_signature');
    const wider = await w.proofFor('planner', {
      ...request,
      scope: { max_daily_amount: { amount: 1, currency: 'EUR' } },
    });
    expect((await post({ ...request, delegator_proof: wider })).body.code).toBe('invalid_signature');
    const byAnother = await w.proofFor('planner', request, { signer: w.keys.concierge.documents });
    expect((await post({ ...request, delegator_proof: byAnother })).body.code).toBe('invalid_signature');
    const stale = await w.proofFor('planner', request, { created: new Date(Date.now() - 600_000).toISOString() });
    expect((await post({ ...request, delegator_proof: stale })).body).toMatchObject({
      code: 'invalid_signature',
      errors: [{ path: '/delegator_proof/created' }],
    });
    const alias = await w.proofFor('planner', request);
    alias.signature = { ...alias.signature, key_id: 'ns:agent:planner' };
    expect((await post({ ...request, delegator_proof: alias })).body.code).toBe('invalid_signature');
    expect(await countState(rt.ctx)).toEqual(before);

    const proof = await w.proofFor('planner', request);
    const first = await post({ ...request, delegator_proof: proof });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const replay = await post({ ...request, delegator_proof: proof });
    expect(replay.status).toBe(409);
    await w.must('POST', `/v1/grants/${first.body.grant_id}/revoke`);
    expect((await post({ ...request, delegator_proof: proof })).status).toBe(409); // a revoked consent stays spent
  });

  it('lets the delegator, the holder (with the delegator signature) and admins delegate; nobody else', async () => {
    await w.must('POST', '/v1/entities', { type: 'organisation', id: 'acme', display_name: 'Acme' });
    const acmeToken = (
      await w.must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:organisation:acme' })
    ).token as string;
    const toAcme = await w.delegate(
      w.root.grant_id,
      'concierge',
      'ns:entity:organisation:acme',
      { may_delegate: true },
      {
        token: w.aliceToken,
      },
    );
    expect(toAcme.status, JSON.stringify(toAcme.body)).toBe(201); // the holder, with the concierge's signature
    // acme has no key: its own credential delegates for it, without a proof
    const byAcme = await w.delegate(
      toAcme.body.grant_id,
      'concierge',
      'ns:entity:agent:helper',
      {},
      {
        token: acmeToken,
        sign: false,
      },
    );
    expect(byAcme.status, JSON.stringify(byAcme.body)).toBe(201);
    // ... and the holder may not speak for a delegator that cannot sign
    const byHolder = await w.delegate(
      toAcme.body.grant_id,
      'concierge',
      'ns:entity:agent:sibling',
      {},
      {
        token: w.aliceToken,
        sign: false,
      },
    );
    expect(byHolder.status).toBe(403);
    const byBob = await w.delegate(middleId, 'planner', 'ns:entity:agent:sibling', {}, { token: w.bobToken });
    expect(byBob.status).toBe(403);
    const byRuntime = await w.delegate(middleId, 'planner', 'ns:entity:agent:sibling', {}, { token: w.runtimeToken });
    expect(byRuntime.status).toBe(403);
  });
});
