/**
 * POST /v1/runtime/authorize over a real socket, signed by the agent with the SDK: the reason codes a user meets,
 * the approval round trip, every failure of the signed payload (each recorded), limits and outcomes.
 */
import { createPublicKey, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDocument, type Jwks } from '@aar/core';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

describe('authorize', () => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let jwks: Jwks;
  const clock = new SteppingClock();

  beforeAll(async () => {
    rt = await startTestRuntime({ clock });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    jwks = (await world.call('GET', '/.well-known/jwks.json')).body;
  });
  afterAll(async () => rt?.close());

  const recorded = async (policyDecisionId: string) =>
    (await world.call('GET', `/v1/decisions/${policyDecisionId}`)).body;

  it('allows a purchase within the grant, with obligations, stop conditions and a signed map', async () => {
    const res = await world.authorize(world.purchase(30, { basket: { items: [{ sku: 'apples', qty: 2 }] } }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' });
    expect(res.body.policy_decision_id).toMatch(/^ns:decision:/);
    expect(res.body.obligations[0]).toEqual({ type: 'audit.emit' });
    expect(res.body.obligations[1]).toMatchObject({
      type: 'basket_hash_binding',
      basket_hash: expect.stringMatching(/^sha-256:/),
    });
    expect(res.body.stop_conditions).toEqual(['actor.stop_signal', 'delegation.revoked', 'scope.attenuated']);
    const map = res.body.decision_map;
    expect(map.nodes.map((n: { type: string }) => n.type)).toEqual([
      'principal',
      'delegation',
      'actor',
      'capability',
      'scope',
      'state',
      'policy',
    ]);
    expect(map.nodes[1].ref).toBe(world.grant.grant_id);
    expect(await verifyDocument(map, jwks)).toMatchObject({ valid: true });
    // independently of core: only the JWKS, the `canonicalize` package and node:crypto
    const { signature, ...unsigned } = map;
    const jwk = (jwks.keys as Array<{ kid: string; kty: string; crv: string; x: string }>).find(
      (k) => k.kid === signature.key_id,
    )!;
    const publicKey = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
    expect(
      verify(null, Buffer.from(canonicalize(unsigned)!), publicKey, Buffer.from(signature.signature, 'base64url')),
    ).toBe(true);
    const tampered = { ...unsigned, reason: 'approved_by_principal' };
    expect(
      verify(null, Buffer.from(canonicalize(tampered)!), publicKey, Buffer.from(signature.signature, 'base64url')),
    ).toBe(false);
    expect((await world.call('GET', `/v1/decision-maps/${res.body.decision_map_ref}`)).body).toEqual(map);
    const rec = await recorded(res.body.policy_decision_id);
    expect(rec).toMatchObject({
      decision: 'allow_with_constraints',
      outcome: 'reserved',
      reservation: { amount: { minor: 3000, currency: 'EUR' } },
    });
    expect(rec.snapshot.grants[0].spent_today).toEqual({ minor: 0, currency: 'EUR' });
  });

  it('names the reason of each refusal', async () => {
    const cases: Array<[unknown, string]> = [
      [
        world.purchase(20, { resource: { merchant_id: 'casino-1', amount: 20, currency: 'EUR' } }),
        'merchant_category_blocked',
      ],
      [
        world.purchase(20, { resource: { merchant_id: 'shop-us', amount: 20, currency: 'EUR' } }),
        'jurisdiction_not_allowed',
      ],
      [world.purchase(20, { resource: { merchant_id: 'nowhere', amount: 20, currency: 'EUR' } }), 'merchant_unknown'],
      [world.purchase(55), 'amount_above_agent_threshold'],
      [world.purchase(20, { resource: { merchant_id: 'grocer-1', amount: 20, currency: 'USD' } }), 'currency_mismatch'],
      [world.purchase(20, { principal_entity_id: 'ns:entity:person:bob' }), 'principal_inactive'],
    ];
    for (const [body, reason] of cases) {
      const res = await world.authorize(body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body, reason).toMatchObject({ decision: 'deny', reason, stop_conditions: [] });
    }
  });

  it('runs the approval round trip, once', async () => {
    const first = await world.authorize(world.purchase(45));
    expect(first.body).toMatchObject({
      decision: 'require_approval',
      reason: 'amount_above_approval_threshold',
      approval: { status: 'pending' },
    });
    const { approval_id } = first.body.approval;
    const retry = world.purchase(45, { policy_decision_id: first.body.policy_decision_id });

    expect((await world.authorize(retry)).body).toMatchObject({
      decision: 'require_approval',
      reason: 'approval_pending',
    });
    // only the principal decides: not the runtime, not an admin
    expect(
      (await world.call('POST', `/v1/approvals/${approval_id}/decision`, { approve: true }, world.runtimeToken)).status,
    ).toBe(403);
    expect((await world.call('POST', `/v1/approvals/${approval_id}/decision`, { approve: true })).status).toBe(403);
    const decided = await world.call(
      'POST',
      `/v1/approvals/${approval_id}/decision`,
      { approve: true, sca_reference: 'sca-123' },
      world.principalToken,
    );
    expect(decided.body).toMatchObject({ status: 'approved', sca_reference: 'sca-123' });

    expect(
      (await world.authorize(world.purchase(44, { policy_decision_id: first.body.policy_decision_id }))).body,
    ).toMatchObject({ decision: 'deny', reason: 'approval_mismatch' });
    expect(
      (
        await world.authorize(
          world.purchase(45, { policy_decision_id: first.body.policy_decision_id, basket: { items: [1] } }),
        )
      ).body,
    ).toMatchObject({ decision: 'deny', reason: 'approval_mismatch' });
    const allowed = await world.authorize(retry);
    expect(allowed.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'approved_by_principal' });
    // with the day's budget used up, the daily limit (check 6) refuses before the approval (check 8) is read
    expect((await world.authorize(retry)).body).toMatchObject({ decision: 'deny', reason: 'daily_limit_exceeded' });
    const failed = await world.call(
      'POST',
      '/v1/runtime/outcomes',
      { policy_decision_id: allowed.body.policy_decision_id, outcome: 'failed' },
      world.runtimeToken,
    );
    expect(failed.body).toMatchObject({ outcome: 'failed', released: { amount: 45, currency: 'EUR' } });
    // budget back: the spent approval itself now refuses
    expect((await world.authorize(retry)).body).toMatchObject({ decision: 'deny', reason: 'approval_expired' });
    expect(
      (await world.call('GET', `/v1/approvals/${approval_id}`, undefined, world.principalToken)).body,
    ).toMatchObject({ status: 'consumed', consumed_by: allowed.body.policy_decision_id });
  });

  it('denies unsigned, badly signed, stale, future and replayed requests, and records each', async () => {
    const body = world.purchase(5);
    const unsigned = await world.authorize(body, () => ({}));
    const badSig = await world.authorize(body, (h) => ({
      ...h,
      signature: h.signature!.replace(/:(.)/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`),
    }));
    const otherBody = await world.authorize(body, (h) => ({
      ...h,
      'content-digest': 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:',
    }));
    clock.advance(-301);
    const stale = await world.authorize(body); // signed now, judged 301 s earlier: the signature is from the future
    clock.advance(602);
    const old = await world.authorize(body); // signed now, judged 301 s later
    clock.advance(-301);
    let captured: Record<string, string> = {};
    const fresh = await world.authorize(body, (h) => (captured = h));
    const replay = await world.authorize(body, () => captured);
    expect(unsigned.body.reason).toBe('payload_signature_missing');
    expect(badSig.body.reason).toBe('payload_signature_invalid');
    expect(otherBody.body.reason).toBe('payload_signature_invalid');
    expect(stale.body.reason).toBe('payload_stale');
    expect(old.body.reason).toBe('payload_stale');
    expect(fresh.body.decision).toBe('allow_with_constraints');
    expect(replay.body).toMatchObject({ decision: 'deny', reason: 'payload_replayed' });
    for (const r of [unsigned, badSig, otherBody, stale, old, replay]) {
      expect(r.body.decision).toBe('deny');
      expect((await recorded(r.body.policy_decision_id)).reason).toBe(r.body.reason);
    }
  });

  it('settles and releases reservations with outcomes', async () => {
    const a = await world.authorize(world.purchase(10));
    expect(a.body.decision).toBe('allow_with_constraints');
    const out = (outcome: string, id = a.body.policy_decision_id) =>
      world.call('POST', '/v1/runtime/outcomes', { policy_decision_id: id, outcome }, world.runtimeToken);
    expect((await out('refunded')).status).toBe(409);
    expect((await out('executed')).body).toMatchObject({
      outcome: 'executed',
      previous_outcome: 'reserved',
      released: null,
    });
    expect((await out('executed')).status).toBe(200);
    expect((await out('refunded')).body).toMatchObject({
      outcome: 'refunded',
      released: { amount: 10, currency: 'EUR' },
    });
    expect((await out('failed')).status).toBe(409);
  });

  it('refuses malformed authorize bodies with problem+json naming the field', async () => {
    const bad = await world.authorize(world.purchase(10.001));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_amount', errors: [{ path: '/resource/amount' }] });
    const noInstrument = await world.authorize({ ...world.purchase(10), scope: {} });
    expect(noInstrument.body).toMatchObject({ code: 'invalid_request', errors: [{ path: '/scope/instrument' }] });
  });
});
