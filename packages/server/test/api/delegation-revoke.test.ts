/**
 * A three-link chain used end to end over HTTP: authorize through it (the effective scope is the intersection), its
 * signed chain document verified offline, suspensions that stop everything below without rewriting a grant, and the
 * revocation cascade: the agent below is denied at once, a sibling branch still allowed, one event per revoked grant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDelegationChain, type Jwks } from '@aar/core';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { ALICE, buildDelegationWorld, countState, type DelegationWorld } from '../support/delegation-world.ts';

describe('a delegated chain, used and revoked', () => {
  let rt: TestRuntime;
  let w: DelegationWorld;
  let jwks: Jwks;
  let middle: string;
  let leaf: string;
  let sibling: string;

  beforeAll(async () => {
    rt = await startTestRuntime();
    w = await buildDelegationWorld(await rt.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
    jwks = (await w.call('GET', '/.well-known/jwks.json')).body;
    const made = async (res: { status: number; body: { grant_id: string } }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.grant_id;
    };
    middle = await made(
      await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {
        max_amount_per_purchase: { amount: 50, currency: 'EUR' },
        allowed_merchant_categories: ['5411'],
      }),
    );
    leaf = await made(
      await w.delegate(middle, 'planner', 'ns:entity:agent:shopper-1', {
        max_amount_per_purchase: { amount: 30, currency: 'EUR' },
        may_delegate: false,
      }),
    );
    sibling = await made(
      await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:sibling', {
        max_amount_per_purchase: { amount: 20, currency: 'EUR' },
      }),
    );
  });
  afterAll(async () => rt?.close());

  it('authorizes within the intersection of the chain, and the map names the chain', async () => {
    const ok = await w.authorize('shopper-1', w.purchase('shopper-1', 25));
    expect(ok.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' });
    expect(ok.body.decision_map.nodes[1]).toEqual({
      type: 'delegation',
      ref: leaf.replace('ns:authority:grant:', 'ns:delegation:'),
      short: '3-link chain',
    });
    const rec = (await w.call('GET', `/v1/decisions/${ok.body.policy_decision_id}`)).body;
    expect(rec.snapshot.grants.map((g: { grant_id: string }) => g.grant_id)).toEqual([w.root.grant_id, middle, leaf]);
    expect(rec.snapshot.grants.map((g: { actor_state?: string }) => g.actor_state)).toEqual([
      'active',
      'active',
      undefined,
    ]);
    // the leaf's own limit (30), the middle's category list, the root's approval threshold apply together
    expect((await w.authorize('shopper-1', w.purchase('shopper-1', 35))).body.reason).toBe(
      'amount_above_agent_threshold',
    );
    expect((await w.authorize('shopper-1', w.purchase('shopper-1', 10, 'diner-1'))).body.reason).toBe(
      'merchant_category_not_allowed',
    );
    const chain = await w.call('GET', `/v1/delegations/${leaf.replace('ns:authority:grant:', 'ns:delegation:')}`);
    expect(chain.status).toBe(200);
    expect(chain.body.leaf_grant_id).toBe(leaf);
  });

  it('exports the chain root first, signed, with the keys to verify it offline', async () => {
    const res = await w.call('GET', `/v1/grants/${leaf}/chain`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      schema_version: 'ns.delegation_chain.v1',
      delegation_id: leaf.replace('ns:authority:grant:', 'ns:delegation:'),
      root_grant_id: w.root.grant_id,
      leaf_grant_id: leaf,
      states: [{ state: 'active' }, { state: 'active' }, { state: 'active' }],
    });
    expect(res.body.links.map((l: { grant_id: string }) => l.grant_id)).toEqual([w.root.grant_id, middle, leaf]);
    expect(res.body.keys.delegators.map((k: { kid: string }) => k.kid)).toEqual([
      'ns:entity:agent:concierge',
      'ns:entity:agent:planner',
    ]);
    expect(res.body.keys.service.length).toBeGreaterThan(0);
    const result = await verifyDelegationChain(res.body, jwks, new Date().toISOString());
    expect(result.problems).toEqual([]);
    expect(result.links.map((l) => l.delegator_signed)).toEqual([false, true, true]);
    // the holder and the holders of links may read it; another principal may not
    expect((await w.call('GET', `/v1/grants/${leaf}/chain`, undefined, w.aliceToken)).status).toBe(200);
    expect((await w.call('GET', `/v1/grants/${leaf}/chain`, undefined, w.bobToken)).status).toBe(403);
  });

  it('stops every grant below a suspended intermediary, principal or card token, rewriting none', async () => {
    const before = (await w.call('GET', `/v1/grants/${leaf}`)).body;
    const cases: Array<[string, string, string]> = [
      ['/v1/entities/ns:entity:agent:planner', 'authority_revoked', 'ns:entity:agent:planner'],
      ['/v1/entities/ns:entity:agent:concierge', 'authority_revoked', 'ns:entity:agent:concierge'],
      [`/v1/entities/${ALICE}`, 'principal_inactive', ''],
      ['/v1/card-tokens/ns:card_token:tok-1', 'instrument_inactive', ''],
    ];
    for (const [path, reason, named] of cases) {
      await w.must('POST', `${path}/suspend`);
      try {
        const denied = await w.authorize('shopper-1', w.purchase('shopper-1', 10));
        expect(denied.body, path).toMatchObject({ decision: 'deny', reason });
        const rec = (await w.call('GET', `/v1/decisions/${denied.body.policy_decision_id}`)).body;
        if (named) expect(JSON.stringify(rec.diagnostics)).toContain(named);
      } finally {
        await w.must('POST', `${path}/activate`);
      }
    }
    expect((await w.authorize('shopper-1', w.purchase('shopper-1', 10))).body.decision).toBe('allow_with_constraints');
    expect((await w.call('GET', `/v1/grants/${leaf}`)).body).toEqual(before);
  });

  it('revokes the middle link and its subtree at once; the sibling branch stays allowed', async () => {
    const before = await countState(rt.ctx);
    const otherPrincipal = await w.call('POST', `/v1/grants/${middle}/revoke`, undefined, w.bobToken);
    expect(otherPrincipal.status).toBe(403);
    expect(await countState(rt.ctx)).toEqual(before);

    const res = await w.call('POST', `/v1/grants/${middle}/revoke`, undefined, w.aliceToken);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      grant_id: middle,
      state: 'revoked',
      revoked_count: 2,
      already_revoked: false,
      reason_code: 'principal_revoked_authority',
    });
    expect(res.body.elapsed_ms).toBeGreaterThanOrEqual(0);
    const after = await countState(rt.ctx);
    expect(after).toMatchObject({ revocations: before.revocations + 2, events: before.events + 2 });
    expect(after.audit_entries).toBe(before.audit_entries + 1); // one audit entry for the operation

    const denied = await w.authorize('shopper-1', w.purchase('shopper-1', 10));
    expect(denied.body).toMatchObject({ decision: 'deny', reason: 'authority_revoked' });
    expect(denied.body.decision_map.nodes[1].short).toBe('3-link chain, revoked');
    const allowed = await w.authorize('sibling', { ...w.purchase('sibling', 10) });
    expect(allowed.body).toMatchObject({ decision: 'allow_with_constraints' });
    expect((await w.authorize('concierge', w.purchase('concierge', 10))).body.decision).toBe('allow_with_constraints');

    for (const id of [middle, leaf]) {
      expect((await w.call('GET', `/v1/grants/${id}`)).body).toMatchObject({
        state: 'revoked',
        revoked_at: res.body.revoked_at,
      });
    }
    expect((await w.call('GET', `/v1/grants/${sibling}`)).body.state).toBe('active');
    const listed = await w.call('GET', `/v1/grants?state=revoked&principal_entity_id=${ALICE}`);
    expect(listed.body.items.map((g: { grant_id: string }) => g.grant_id).sort()).toEqual([middle, leaf].sort());

    const events = (await w.call('GET', '/v1/events?event_type=ns.authority.revoked')).body.items;
    expect(events.map((e: { subject_ref: string }) => e.subject_ref).sort()).toEqual([middle, leaf].sort());
    for (const e of events) {
      expect(e).toMatchObject({
        schema_version: 'ns.webhook.v1',
        event_type: 'ns.authority.revoked',
        principal_entity_id: ALICE,
        actor_entity_id: ALICE,
        reason_code: 'principal_revoked_authority',
        audit_ref: res.body.audit_ref,
        data: {
          previous_state: 'active',
          new_state: 'revoked',
          affected_capabilities: ['ns:capability:payment_action:card_purchase'],
          revocation_root: middle,
        },
        signature: { algorithm: 'ed25519' },
      });
    }
    const chain = (await w.call('GET', `/v1/grants/${leaf}/chain`)).body;
    const offline = await verifyDelegationChain(chain, jwks, new Date().toISOString());
    expect(offline.problems.map((p) => [p.code, p.index])).toEqual([
      ['revoked', 1],
      ['revoked', 2],
    ]);
  });

  it('answers a second revoke idempotently, writing nothing', async () => {
    const before = await countState(rt.ctx);
    const again = await w.call('POST', `/v1/grants/${leaf}/revoke`, undefined, w.aliceToken);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ state: 'revoked', revoked_count: 0, already_revoked: true, audit_ref: null });
    expect(await countState(rt.ctx)).toEqual(before);
    expect(
      (await w.call('POST', '/v1/grants/ns:authority:grant:01963a4e-0000-7000-8000-000000000000/revoke')).status,
    ).toBe(404);
  });

  it("refuses an intermediary's own credential (only the principal's grants, nothing else), lets an admin revoke anything", async () => {
    await w.must('POST', '/v1/entities', { type: 'organisation', id: 'acme-r', display_name: 'Acme' });
    const acme = (
      await w.must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:organisation:acme-r' })
    ).token as string;
    const toAcme = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:organisation:acme-r', {
      may_delegate: true,
    });
    const below = await w.delegate(
      toAcme.body.grant_id,
      'concierge',
      'ns:entity:agent:helper',
      {},
      { token: acme, sign: false },
    );
    expect(below.status, JSON.stringify(below.body)).toBe(201);
    expect((await w.call('POST', `/v1/grants/${toAcme.body.grant_id}/revoke`, undefined, acme)).status).toBe(403);
    // acme delegated `below`, but its principal is alice: acme's principal credential may not revoke it
    const byDelegator = await w.call('POST', `/v1/grants/${below.body.grant_id}/revoke`, undefined, acme);
    expect(byDelegator.status).toBe(403);
    expect((await w.call('GET', `/v1/grants/${below.body.grant_id}`)).body.state).toBe('active');
    const byAdmin = await w.call('POST', `/v1/grants/${w.root.grant_id}/revoke`);
    // the root, the concierge's sibling branch, acme's grant and helper's; the middle subtree was revoked already
    expect(byAdmin.body).toMatchObject({ revoked_count: 4, reason_code: 'admin_revoked_authority' });
    expect((await w.authorize('sibling', w.purchase('sibling', 10))).body.reason).toBe('authority_revoked');
  });
});
