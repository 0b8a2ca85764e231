/**
 * Real answers validate against the served schemas (CONTRACT section 16): a delegation world over HTTP (root grant,
 * a delegated grant with the delegator's statement, allowed, denied and approval decisions, proof bundles and their
 * verification, a revocation) and every route that answers an `ns.*` document. Each `ns.*` document found inside an answer is validated against the
 * schema its `schema_version` names, as served by GET /v1/schemas/{name}; documents without `schema_version`
 * (checkpoints, inclusion proofs, audit entries, capabilities, states, policies) against the schema of their route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { expectSchemaValid, nsDocumentsIn, schemaErrors } from '../support/schema-validation.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

let rt: TestRuntime;
let w: DelegationWorld;
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const answers: Array<{ route: string; body: unknown }> = [];

async function get(path: string, token?: string): Promise<Json> {
  const res = await w.call('GET', path, undefined, token);
  expect(res.status, path).toBe(200);
  answers.push({ route: `GET ${path}`, body: res.body });
  return res.body;
}

beforeAll(async () => {
  rt = await startTestRuntime();
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  w = await buildDelegationWorld(base, ADMIN_TOKEN);
  const child = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:shopper-1', {
    max_amount_per_purchase: { amount: 50, currency: 'EUR' },
  });
  expect(child.status).toBe(201);
  answers.push({ route: 'POST /v1/grants', body: child.body }, { route: 'POST /v1/grants', body: w.root });
  const decisions = [
    await w.authorize('shopper-1', w.purchase('shopper-1', 30)),
    await w.authorize('shopper-1', w.purchase('shopper-1', 70)),
    await w.authorize('concierge', w.purchase('concierge', 90)),
    await w.authorize('planner', w.purchase('planner', 10)),
  ];
  for (const d of decisions) answers.push({ route: 'POST /v1/runtime/authorize', body: d.body });
  expect(decisions.map((d) => d.body.decision)).toEqual(['allow_with_constraints', 'deny', 'require_approval', 'deny']);
  for (const d of decisions) {
    const pack = await get(`/v1/evidence-packs/${d.body.evidence_refs[0]}`);
    answers.push({
      route: 'POST /v1/evidence-packs/verify',
      body: await w.must('POST', '/v1/evidence-packs/verify', { pack }),
    });
    await get(`/v1/decisions/${d.body.policy_decision_id}`);
    await get(`/v1/decision-maps/${d.body.decision_map_ref}`);
    for (const node of d.body.decision_map.nodes) {
      if (node.type === 'scope') await get(`/v1/scopes/${node.ref}`);
    }
  }
  for (const d of [decisions[0]!, decisions[3]!]) {
    const bundle = await w.must('POST', '/v1/bundles/assemble', { policy_decision_id: d.body.policy_decision_id });
    answers.push({ route: 'POST /v1/bundles/assemble', body: bundle });
    answers.push({ route: 'POST /v1/bundles/verify', body: await w.must('POST', '/v1/bundles/verify', { bundle }) });
  }
  await get(`/v1/grants/${child.body.grant_id}`);
  await get(`/v1/grants/${child.body.grant_id}/chain`);
  expect((await w.call('POST', `/v1/grants/${child.body.grant_id}/revoke`, {})).status).toBe(200);
  await get(`/v1/grants/${child.body.grant_id}/chain`);
  await get('/v1/grants');
  await get('/v1/events?limit=500');
}, 60_000);
afterAll(async () => rt?.close());

describe('real answers against the served schemas', () => {
  it('every ns.* document inside every answer validates against the schema its schema_version names', () => {
    const seen = new Set<string>();
    const failures: string[] = [];
    for (const { route, body } of answers) {
      for (const { pointer, doc } of nsDocumentsIn(body)) {
        const name = doc.schema_version as string;
        seen.add(name);
        for (const e of schemaErrors(doc)) failures.push(`${route} ${pointer}: ${e}`);
      }
    }
    expect(failures).toEqual([]);
    // the walk saw the documents of the contract: it cannot pass by finding none
    expect([...seen].sort()).toEqual(
      expect.arrayContaining([
        'ns.authority_grant.v1',
        'ns.authority_proof_bundle.v1',
        'ns.bundle_verification.v1',
        'ns.decision_map.v1',
        'ns.delegation_chain.v1',
        'ns.delegation_statement.v1',
        'ns.evidence_pack.v1',
        'ns.purpose_manifest.v1',
        'ns.runtime_decision.v1',
        'ns.scope_snapshot.v1',
        'ns.state_snapshot.v1',
        'ns.webhook.v1',
      ]),
    );
  });

  it('validates the documents that carry no schema_version against the schema of their route', async () => {
    const checkpoint = await get('/v1/audit/checkpoint');
    expectSchemaValid(checkpoint, 'ns.checkpoint.v1');
    const proof = await get(`/v1/audit/proofs/inclusion?index=3&size=${checkpoint.size}`);
    expectSchemaValid(proof, 'ns.inclusion_proof.v1');
    const entry = await get('/v1/audit/entries/3');
    expectSchemaValid(JSON.parse(entry.entry), 'ns.audit_entry.v1');
    const packs = answers.filter((a) => a.route.startsWith('GET /v1/evidence-packs/')).map((a) => a.body as Json);
    expect(packs).toHaveLength(4);
    for (const pack of packs) {
      expectSchemaValid(JSON.parse(pack.audit_entry), 'ns.audit_entry.v1');
      expectSchemaValid(pack.checkpoint, 'ns.checkpoint.v1');
    }
    for (const [list, schema] of [
      ['/v1/capabilities', 'ns.capability.v1'],
      ['/v1/states', 'ns.state.v1'],
      ['/v1/policies', 'ns.policy.v1'],
    ] as const) {
      const items = (await get(list)).items as unknown[];
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) expectSchemaValid(item, schema);
    }
  });

  it('refuses a document that strays from its schema, so the walk above can fail', () => {
    const pack = answers.find((a) => a.route.startsWith('GET /v1/evidence-packs/'))!.body as Json;
    expect(schemaErrors({ ...pack, extra: 1 })).not.toEqual([]);
    expect(schemaErrors({ ...pack.decision_map, nodes: pack.decision_map.nodes.slice(1) })).not.toEqual([]);
    expect(schemaErrors({ ...pack.checkpoint, root_hash: 'not base64' }, 'ns.checkpoint.v1')).not.toEqual([]);
  });
});
