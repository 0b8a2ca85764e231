/**
 * Every ref a decision map carries resolves to a GET that returns the thing it names (core's `refPath`): the seven
 * nodes (`ns:scope:`, `ns:state:` and `ns:policy:` included), the audit ref and the evidence refs; for an allowed
 * purchase, a deny with no authority, an elevated risk, and a delegated chain. Over a real socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refPath } from '@aar/core';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

describe('decision map refs', () => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let auditorToken: string;

  beforeAll(async () => {
    rt = await startTestRuntime();
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    rt.ctx.config.publicUrls = [base];
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    auditorToken = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token;
  });
  afterAll(async () => rt?.close());

  /** GETs every ref of the map with an auditor credential (read-only: who follows the evidence) */
  async function resolveAll(map: { nodes: Array<{ ref: string }>; audit_ref: string; evidence_refs: string[] }) {
    const refs = [...map.nodes.map((n) => n.ref), map.audit_ref, ...map.evidence_refs];
    for (const ref of refs) {
      const path = refPath(ref);
      expect(path, `no path for ${ref}`).toBeDefined();
      const res = await world.call('GET', path!, undefined, auditorToken);
      expect(res.status, `${ref} -> ${path}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(JSON.stringify(res.body), `${path} does not name ${ref}`).toContain(JSON.stringify(ref).slice(1, -1));
    }
    return refs;
  }

  it('resolves every ref of an allowed purchase, and the scope and policy say what decided', async () => {
    const res = await world.authorize(world.purchase(30));
    expect(res.body.decision).toBe('allow_with_constraints');
    const refs = await resolveAll(res.body.decision_map);
    expect(refs.some((r) => r.startsWith('ns:scope:'))).toBe(true);
    const scopeRef = res.body.decision_map.nodes[4].ref as string;
    const scope = (await world.call('GET', refPath(scopeRef)!, undefined, world.runtimeToken)).body;
    expect(scope).toMatchObject({
      schema_version: 'ns.scope_snapshot.v1',
      grant_id: world.grant.grant_id,
      effective_scope: { max_amount_per_purchase: { amount: 50, currency: 'EUR' } },
    });
    const policy = (
      await world.call('GET', refPath(res.body.decision_map.nodes[6].ref)!, undefined, world.runtimeToken)
    ).body;
    expect(policy.checks.map((c: { check: string }) => c.check)).toEqual([
      'payload',
      'entities',
      'authority',
      'chain',
      'merchant',
      'amount',
      'risk',
      'approval',
    ]);
  });

  it('resolves the refs of a deny with no covering grant (`ns:state:no_authority`, `ns:scope:none`)', async () => {
    await world.must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
    const res = await world.authorize(world.purchase(10, { principal_entity_id: 'ns:entity:person:bob' }));
    expect(res.body.decision).toBe('deny');
    const refs = await resolveAll(res.body.decision_map);
    expect(refs).toContain('ns:state:no_authority');
    expect(refs).toContain('ns:scope:none');
  });

  it('resolves an elevated risk state', async () => {
    await world.must('POST', '/v1/risk-signals', { entity_id: 'ns:entity:agent:shopper-1', risk_state: 'elevated' });
    const res = await world.authorize(world.purchase(12));
    expect(res.body.decision).toBe('require_approval');
    expect(await resolveAll(res.body.decision_map)).toContain('ns:state:risk_elevated');
    await world.must('POST', '/v1/risk-signals', { entity_id: 'ns:entity:agent:shopper-1', risk_state: 'normal' });
  });

  it('refuses refs it does not serve with 404, and malformed scope ids with 400 naming the parameter', async () => {
    const get = (path: string) => world.call('GET', path, undefined, world.runtimeToken);
    expect((await get('/v1/states/ns%3Astate%3Anope')).status).toBe(404);
    expect((await get('/v1/policies/ns%3Apolicy%3Aother')).status).toBe(404);
    expect((await get('/v1/capabilities/ns%3Acapability%3Apayment_action%3Awire')).status).toBe(404);
    const bad = await get('/v1/scopes/ns%3Ascope%3Anot-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/params/id');
    expect(refPath('ns:unknown:x')).toBeUndefined();
    expect(refPath('ns:scope:../../v1/tokens')).toBe('/v1/scopes/ns%3Ascope%3A..%2F..%2Fv1%2Ftokens');
  });

  it('lets a principal read the scope of its own chain only', async () => {
    const own = await world.call(
      'GET',
      refPath(`ns:scope:${String(world.grant.grant_id).split(':').pop()}`)!,
      undefined,
      world.principalToken,
    );
    expect(own.status).toBe(200);
    const other = (
      await world.must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:person:bob' })
    ).token as string;
    const refused = await world.call(
      'GET',
      refPath(`ns:scope:${String(world.grant.grant_id).split(':').pop()}`)!,
      undefined,
      other,
    );
    expect(refused.status).toBe(403);
  });
});
