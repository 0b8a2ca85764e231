/**
 * Proof bundles over HTTP (CONTRACT section 12): a delegated purchase assembled into a signed
 * `ns.authority_proof_bundle.v1` that verifies offline with the JWKS alone (all ten checks), valid against its served
 * schemas, stored once and served byte for byte, each reference's href serving exactly the part its sha256 covers;
 * bundles of a decision that read no grant and of a grant revoked after the decision still verify; the server-side
 * verification is signed and refuses damage; bad input is refused naming the field, and nothing is stored.
 */
import { createHash } from 'node:crypto';
import { BUNDLE_CHECKS, BUNDLE_PARTS, canonicalJson, verifyBundle, verifyDocument, type Jwks } from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { expectSchemaValid, nsDocumentsIn } from '../support/schema-validation.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const ORIGIN = '127.0.0.1:8080/audit';

let rt: TestRuntime;
let base: string;
let w: DelegationWorld;
let jwks: Jwks;
let auditor: string;
let child: Json;
let allowed: Json;

beforeAll(async () => {
  rt = await startTestRuntime();
  base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  w = await buildDelegationWorld(base, ADMIN_TOKEN);
  jwks = (await w.must('GET', '/.well-known/jwks.json')) as Jwks;
  auditor = (await w.must('POST', '/v1/tokens', { role: 'auditor' })).token;
  child = (
    await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:shopper-1', {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
    })
  ).body;
  allowed = (await w.authorize('shopper-1', w.purchase('shopper-1', 30))).body;
  expect(allowed.decision).toBe('allow_with_constraints');
});
afterAll(async () => rt?.close());

async function assemble(body: unknown, token = auditor) {
  const res = await fetch(`${base}/v1/bundles/assemble`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text), location: res.headers.get('location') };
}

async function countBundles(): Promise<number> {
  const row = await rt.ctx.store.db
    .selectFrom('bundles')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /v1/bundles/assemble', () => {
  it('binds a delegated purchase to its whole evidence chain, verifiable offline with the JWKS alone', async () => {
    const res = await assemble({
      policy_decision_id: allowed.policy_decision_id,
      purpose: { purpose: 'chargeback_dispute', ticket: 'CASE-4711' },
    });
    expect(res.status).toBe(201);
    const bundle = res.body;
    expect(res.location).toBe(`/v1/bundles/${bundle.bundle_id}`);
    expect(res.text).toBe(canonicalJson(bundle));
    expect(bundle).toMatchObject({
      schema_version: 'ns.authority_proof_bundle.v1',
      purpose_manifest: {
        policy_decision_id: allowed.policy_decision_id,
        purpose: 'chargeback_dispute',
        ticket: 'CASE-4711',
      },
      runtime_decision: { decision: allowed.decision, reason: allowed.reason, obligations: allowed.obligations },
      decision_map: allowed.decision_map,
      evidence_pack: { evidence_pack_id: allowed.evidence_refs[0] },
      delegation_chain: { leaf_grant_id: child.grant_id, root_grant_id: w.root.grant_id },
      scope_snapshot: { grant_id: child.grant_id },
      replay_proof: { replayed: { decision: allowed.decision, reason: allowed.reason }, equal: true },
      rule_pack_refs: [{ ref: 'ns:policy:card-purchase-default' }],
    });
    expect(bundle.conformance_profiles).toContain('ns.bundles.v1');
    expect(bundle.references.map((r: Json) => r.name)).toEqual(BUNDLE_PARTS.map((p) => p.name));
    const result = await verifyBundle(bundle, jwks, { origin: ORIGIN });
    expect(result.checks.map((c) => c.name)).toEqual([...BUNDLE_CHECKS]);
    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    expect(result.valid).toBe(true);
    // every ns.* document in it follows its served schema, and so do the parts that carry no schema_version
    for (const { doc } of nsDocumentsIn(bundle)) expectSchemaValid(doc);
    expectSchemaValid(bundle.checkpoint, 'ns.checkpoint.v1');
    expectSchemaValid(bundle.inclusion_proof, 'ns.inclusion_proof.v1');
    expectSchemaValid(bundle.replay_proof, 'ns.replay_proof.v1');
    expectSchemaValid(bundle.rule_pack_refs, 'ns.rule_pack_refs.v1');
    expectSchemaValid(bundle.conformance_profiles, 'ns.conformance_profiles.v1');
  });

  it('stores it once and serves it byte for byte; every href serves exactly the part its sha256 covers', async () => {
    const { body: bundle, text } = await assemble({ policy_decision_id: allowed.policy_decision_id });
    const read = await fetch(`${base}/v1/bundles/${bundle.bundle_id}`, {
      headers: { authorization: `Bearer ${auditor}` },
    });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe(text);
    for (const ref of bundle.references) {
      const part = await fetch(`${base}${ref.href}`, { headers: { authorization: `Bearer ${auditor}` } });
      expect(part.status, ref.name).toBe(200);
      const bytes = Buffer.from(await part.arrayBuffer());
      expect(createHash('sha256').update(bytes).digest('hex'), ref.name).toBe(ref.sha256);
      expect(JSON.parse(bytes.toString('utf8'))).toEqual(bundle[ref.name]);
    }
    const rows = await rt.ctx.store.db
      .selectFrom('bundles')
      .selectAll()
      .where('bundle_id', '=', bundle.bundle_id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('proves a decision that read no grant: no chain, an empty scope, still all ten checks', async () => {
    const denied = (await w.authorize('planner', w.purchase('planner', 10))).body;
    expect(denied.reason).toBe('authority_not_found');
    const { status, body } = await assemble({ policy_decision_id: denied.policy_decision_id });
    expect(status).toBe(201);
    expect(body.delegation_chain).toBeNull();
    expect(body.scope_snapshot).toMatchObject({ scope_id: 'ns:scope:none', effective_scope: null, links: [] });
    expect((await verifyBundle(body, jwks, { origin: ORIGIN })).valid).toBe(true);
  });

  it('still proves a decision whose grant was revoked after it; the chain attests the revocation time', async () => {
    const grant = (
      await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:sibling', {
        max_amount_per_purchase: { amount: 20, currency: 'EUR' },
      })
    ).body;
    const decided = (await w.authorize('sibling', w.purchase('sibling', 15))).body;
    expect(decided.decision).toBe('allow_with_constraints');
    expect((await w.call('POST', `/v1/grants/${grant.grant_id}/revoke`, {})).status).toBe(200);
    const { body } = await assemble({ policy_decision_id: decided.policy_decision_id });
    expect(body.delegation_chain.states[1]).toMatchObject({ grant_id: grant.grant_id, state: 'revoked' });
    const result = await verifyBundle(body, jwks, { origin: ORIGIN });
    expect(result.checks.find((c) => c.name === 'temporal_validity')).toMatchObject({ ok: true });
    expect(result.valid).toBe(true);
  });

  it('lets a principal credential assemble bundles of its own decisions only', async () => {
    expect((await assemble({ policy_decision_id: allowed.policy_decision_id }, w.aliceToken)).status).toBe(201);
    const before = await countBundles();
    const refused = await assemble({ policy_decision_id: allowed.policy_decision_id }, w.bobToken);
    expect(refused.status).toBe(403);
    expect(await countBundles()).toBe(before);
  });

  it('refuses bad input naming the field, and stores nothing', async () => {
    const before = await countBundles();
    const cases: Array<[unknown, number, string, string]> = [
      [{}, 400, 'invalid_request', '/policy_decision_id'],
      [{ policy_decision_id: 'ns:decision:nope' }, 400, 'invalid_id', '/policy_decision_id'],
      [{ policy_decision_id: allowed.policy_decision_id, extra: 1 }, 400, 'invalid_request', '/extra'],
      [
        { policy_decision_id: allowed.policy_decision_id, purpose: { purpose: '' } },
        400,
        'invalid_request',
        '/purpose/purpose',
      ],
    ];
    for (const [body, status, code, path] of cases) {
      const res = await assemble(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code).toBe(code);
      expect(JSON.stringify(res.body.errors)).toContain(path);
    }
    const unknown = await assemble({ policy_decision_id: 'ns:decision:01a20b46-219a-70b3-b7c1-1dc39737b030' });
    expect(unknown.status).toBe(404);
    expect(await countBundles()).toBe(before);
  });

  it('answers 404 for an unknown bundle and for a part a bundle does not have', async () => {
    const { body } = await assemble({ policy_decision_id: allowed.policy_decision_id });
    const missing = await w.call('GET', '/v1/bundles/ns:bundle:01a20b46-219a-70b3-b7c1-1dc39737b030');
    expect(missing.status).toBe(404);
    const part = await w.call('GET', `/v1/bundles/${body.bundle_id}/parts/signature`);
    expect(part.status).toBe(400);
    expect(JSON.stringify(part.body.errors)).toContain('/params/name');
  });
});

describe('POST /v1/bundles/verify', () => {
  it('answers a signed ns.bundle_verification.v1 with the ten checks, valid for a genuine bundle', async () => {
    const { body: bundle } = await assemble({ policy_decision_id: allowed.policy_decision_id });
    const res = await w.call('POST', '/v1/bundles/verify', { bundle }, auditor);
    expect(res.status).toBe(200);
    expectSchemaValid(res.body);
    expect(res.body).toMatchObject({ bundle_id: bundle.bundle_id, valid: true });
    expect(res.body.checks.map((c: Json) => c.name)).toEqual([...BUNDLE_CHECKS]);
    expect((await verifyDocument(res.body, jwks)).valid).toBe(true);
  });

  it('refuses a damaged bundle, and keys this service does not publish', async () => {
    const { body: bundle } = await assemble({ policy_decision_id: allowed.policy_decision_id });
    const damaged = structuredClone(bundle);
    damaged.runtime_decision.decision = 'deny';
    const res = await w.call('POST', '/v1/bundles/verify', { bundle: damaged }, auditor);
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.checks.filter((c: Json) => !c.ok).map((c: Json) => c.name)).toEqual([
      'bundle_signature',
      'references_digest',
      'replay_equal',
    ]);
    // keys this service does not publish are never trusted: its answer carries its signature (services/bundles/
    // trusted-keys.ts; test/security/bundles-hostile.test.ts has the attacks)
    const otherKeys = { keys: [{ ...jwks.keys[0]!, x: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }] };
    const foreign = await w.call('POST', '/v1/bundles/verify', { bundle, jwks: otherKeys }, auditor);
    expect(foreign.status).toBe(422);
    expect(foreign.body).toMatchObject({ code: 'reference_invalid', errors: [{ path: '/jwks/keys/0' }] });
  });

  it('refuses a body without a bundle, naming the field', async () => {
    const res = await w.call('POST', '/v1/bundles/verify', { jwks }, auditor);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.errors)).toContain('/bundle');
  });
});
