/**
 * Evidence packs over HTTP (CONTRACT sections 3, 8 and 11): `evidence_refs` of an authorize answer resolve to a
 * signed `ns.evidence_pack.v1` that verifies offline with only the JWKS and replays; it is stored once and served
 * byte for byte; a decision made after the last checkpoint gets a new one, consistent with it; server-side
 * verification refuses damage and reports a replay mismatch with `ns.decision.replay_mismatch`, for genuine packs only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canonicalJson,
  parseAuditEntryText,
  signDocument,
  verifyConsistencyProofJson,
  verifyEvidencePack,
  type Jwks,
} from '@aar/core';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const ORIGIN = '127.0.0.1:8080/audit';
let rt: TestRuntime;
let base: string;
let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
let jwks: Jwks;
let auditor: string;

beforeAll(async () => {
  rt = await startTestRuntime();
  base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  jwks = (await world.call('GET', '/.well-known/jwks.json')).body;
  auditor = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token;
});
afterAll(async () => rt?.close());

async function fetchPackText(id: string, token = auditor): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(`${base}/v1/evidence-packs/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

describe('evidence packs', () => {
  it('resolves evidence_refs to a signed pack that verifies offline and replays', async () => {
    const answer = (await world.authorize(world.purchase(30, { basket: { items: [{ sku: 'tea' }] } }))).body;
    const { status, text, type } = await fetchPackText(answer.evidence_refs[0]);
    expect(status).toBe(200);
    expect(type).toMatch(/^application\/json/);
    expect(text).toBe(canonicalJson(JSON.parse(text)));
    const pack = JSON.parse(text);
    expect(pack).toMatchObject({
      schema_version: 'ns.evidence_pack.v1',
      evidence_pack_id: answer.evidence_refs[0],
      policy_decision_id: answer.policy_decision_id,
      decision: {
        decision: answer.decision,
        reason: answer.reason,
        obligations: answer.obligations,
        stop_conditions: answer.stop_conditions,
      },
      decision_map: answer.decision_map,
      engine_version: expect.any(String),
    });
    const entry = parseAuditEntryText(pack.audit_entry)!;
    expect(entry).toMatchObject({ audit_id: answer.audit_ref, kind: 'ns.purchase_authority.allowed' });
    expect(pack.inclusion_proof.leaf_index).toBe(entry.index);
    expect(pack.checkpoint.size).toBeGreaterThan(entry.index);
    const result = await verifyEvidencePack(pack, jwks, { origin: ORIGIN });
    expect(result).toMatchObject({ valid: true, replay_decision: { decision: answer.decision, matches: true } });
    // the decision record in the snapshot is what decide read: the pack holds the full snapshot
    expect(pack.snapshot.grants[0].grant_id).toBe(world.grant.grant_id);
  });

  it('serves the same bytes every time, also to concurrent first requests', async () => {
    const answer = (await world.authorize(world.purchase(12))).body;
    const id = answer.evidence_refs[0];
    const texts = await Promise.all(Array.from({ length: 6 }, () => fetchPackText(id)));
    expect(new Set(texts.map((t) => t.text)).size).toBe(1);
    expect((await fetchPackText(id, world.runtimeToken)).text).toBe(texts[0]!.text);
    expect((await fetchPackText(id, world.principalToken)).text).toBe(texts[0]!.text);
    const rows = await rt.ctx.store.db
      .selectFrom('evidence_packs')
      .selectAll()
      .where('evidence_pack_id', '=', id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('signs a new checkpoint for a decision after the last one, consistent with it', async () => {
    const first = (await world.authorize(world.purchase(5))).body;
    const firstPack = JSON.parse((await fetchPackText(first.evidence_refs[0])).text);
    const second = (await world.authorize(world.purchase(6))).body;
    const secondPack = JSON.parse((await fetchPackText(second.evidence_refs[0])).text);
    expect(secondPack.checkpoint.size).toBeGreaterThan(firstPack.checkpoint.size);
    const proof = (
      await world.call(
        'GET',
        `/v1/audit/proofs/consistency?from=${firstPack.checkpoint.size}&to=${secondPack.checkpoint.size}`,
        undefined,
        auditor,
      )
    ).body;
    expect(verifyConsistencyProofJson(proof, firstPack.checkpoint.root_hash, secondPack.checkpoint.root_hash)).toEqual({
      valid: true,
    });
    for (const pack of [firstPack, secondPack]) {
      expect((await verifyEvidencePack(pack, jwks, { origin: ORIGIN })).valid).toBe(true);
    }
  });

  it('has packs for denials and approvals too', async () => {
    const denied = (
      await world.authorize(world.purchase(20, { resource: { merchant_id: 'casino-1', amount: 20, currency: 'EUR' } }))
    ).body;
    const approval = (await world.authorize(world.purchase(45))).body;
    expect(denied.decision).toBe('deny');
    expect(approval.decision).toBe('require_approval');
    for (const answer of [denied, approval]) {
      const pack = JSON.parse((await fetchPackText(answer.evidence_refs[0])).text);
      const result = await verifyEvidencePack(pack, jwks, { origin: ORIGIN });
      expect(result).toMatchObject({ valid: true, replay_decision: { reason: answer.reason, matches: true } });
    }
  });

  it('answers 404 for an unknown pack, 400 for a malformed id, 403 to another principal', async () => {
    expect((await fetchPackText('ns:evidence-pack:01900000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await fetchPackText('not-an-id')).status).toBe(400);
    await world.must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
    const bob = (
      await world.must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:person:bob' })
    ).token;
    const answer = (await world.authorize(world.purchase(7))).body;
    expect((await fetchPackText(answer.evidence_refs[0], bob)).status).toBe(403);
  });
});

describe('POST /v1/evidence-packs/verify', () => {
  const replayMismatches = async () =>
    rt.ctx.store.db.selectFrom('events').selectAll().where('event_type', '=', 'ns.decision.replay_mismatch').execute();

  it('verifies a genuine pack and refuses a damaged one, without an event', async () => {
    const answer = (await world.authorize(world.purchase(9))).body;
    const pack = JSON.parse((await fetchPackText(answer.evidence_refs[0])).text);
    const ok = await world.call('POST', '/v1/evidence-packs/verify', { pack }, auditor);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ valid: true, algorithm: 'ed25519', key_id: pack.signature.key_id });
    const damaged = structuredClone(pack);
    damaged.request.amount.minor = 1;
    const bad = await world.call('POST', '/v1/evidence-packs/verify', { pack: damaged }, auditor);
    expect(bad.body.valid).toBe(false);
    expect(bad.body.checks.filter((c: { valid: boolean }) => !c.valid).map((c: { check: string }) => c.check)).toEqual([
      'pack_signature',
      'record_digest',
    ]);
    const unknownKey = structuredClone(pack);
    unknownKey.signature.key_id = 'ns:key:../../etc/passwd';
    expect(
      (await world.call('POST', '/v1/evidence-packs/verify', { pack: unknownKey }, auditor)).body.checks[0],
    ).toEqual({
      check: 'pack_signature',
      valid: false,
      failure: 'unknown_key',
    });
    expect(await replayMismatches()).toHaveLength(0);
    expect((await world.call('POST', '/v1/evidence-packs/verify', { pack }, world.principalToken)).status).toBe(403);
  });

  it('emits ns.decision.replay_mismatch when a genuine pack does not replay', async () => {
    const answer = (await world.authorize(world.purchase(10))).body;
    const pack = JSON.parse((await fetchPackText(answer.evidence_refs[0])).text);
    // what a pack of an older, different engine looks like: signed by this service, recorded another reason
    const { signature: _s, ...unsigned } = pack;
    unsigned.snapshot.risk.actor = 'blocked';
    const stale = await signDocument(unsigned, rt.ctx.keys.current());
    const res = await world.call('POST', '/v1/evidence-packs/verify', { pack: stale }, auditor);
    expect(res.body.valid).toBe(false);
    expect(res.body.replay_decision).toMatchObject({ decision: 'deny', reason: 'risk_state_blocked', matches: false });
    const events = await replayMismatches();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.envelope)).toMatchObject({
      subject_ref: answer.policy_decision_id,
      reason_code: 'replay_mismatch',
      evidence_refs: [answer.evidence_refs[0]],
      data: {
        recorded: { decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' },
        replayed: { decision: 'deny', reason: 'risk_state_blocked' },
      },
    });
    // an unsigned forgery of the same never writes an event
    await world.call(
      'POST',
      '/v1/evidence-packs/verify',
      { pack: { ...stale, signature: { ...stale.signature, signature: 'AA' } } },
      auditor,
    );
    expect(await replayMismatches()).toHaveLength(1);
  });
});
