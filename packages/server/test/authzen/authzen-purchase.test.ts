/**
 * The AuthZEN purchase mapping over real HTTP (CONTRACT section 20): a PEP's evaluation is the same decision as
 * POST /v1/runtime/authorize (recorded, signed, audited, its evidence served), the agent's forwarded signed request
 * is verified against AAR_PEP_URLS (and only there), a replay is denied, `require_approval` answers false with the
 * approval, and malformed or foreign input is refused whole with nothing recorded.
 */
import { AarClient } from '@aar/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthzenEvaluationResponse,
  AuthzenEvaluationsResponse,
  AuthzenPdpMetadata,
  AuthzenSearchActionResponse,
  AuthzenSearchEntityResponse,
} from '../../src/routes/authzen-schemas.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { expectAuthzenShape } from './authzen-support.ts';

const GATEWAY = 'https://gateway.example.com/pay';

describe('AuthZEN purchase evaluations', () => {
  let rt: TestRuntime;
  let base: string;
  let w: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let pep: string;
  let boundPep: string;

  beforeAll(async () => {
    rt = await startTestRuntime({ config: { pepUrls: [GATEWAY] } });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildPurchaseWorld(base, ADMIN_TOKEN);
    await w.must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
    pep = (await w.must('POST', '/v1/tokens', { role: 'pep', label: 'gateway' })).token;
    boundPep = (await w.must('POST', '/v1/tokens', { role: 'pep', principal_entity_id: 'ns:entity:person:alice' }))
      .token;
  });
  afterAll(async () => rt?.close());

  const decisionCount = async () =>
    Number(
      (await rt.ctx.store.db
        .selectFrom('decisions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst())!.n,
    );

  /** the agent signs its own request to the gateway; the gateway forwards it */
  const agentRequest = async (body: unknown, path = '/pay/checkout') => {
    const text = JSON.stringify(body);
    const url = `https://gateway.example.com${path}`;
    const headers = { ...(await w.signer.sign({ method: 'POST', url, body: text })) };
    return { method: 'POST', target_uri: url, headers, body: text };
  };

  const evaluation = (amount: number, context: Record<string, unknown> = {}, action = 'purchase.execute') => ({
    subject: { type: 'agent', id: 'ns:entity:agent:shopper-1' },
    action: { name: action },
    resource: {
      type: 'purchase',
      properties: { merchant_id: 'grocer-1', amount, currency: 'EUR', instrument: 'ns:card_token:tok-1' },
    },
    context: { principal_entity_id: 'ns:entity:person:alice', ...context },
  });

  it('publishes its PDP metadata publicly', async () => {
    const res = await fetch(`${base}/.well-known/authzen-configuration`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expectAuthzenShape(body, AuthzenPdpMetadata);
    expect(body.access_evaluation_endpoint).toBe(`${body.policy_decision_point}/access/v1/evaluation`);
    expect(body.search_action_endpoint).toBe(`${body.policy_decision_point}/access/v1/search/action`);
  });

  it('allows a signed purchase: the same decision, record, evidence and audit as authorize', async () => {
    const forwarded = await agentRequest({ buy: 'groceries', amount: 12 });
    const res = await w.call('POST', '/access/v1/evaluation', evaluation(12, { agent_request: forwarded }), pep);
    expect(res.status).toBe(200);
    expectAuthzenShape(res.body, AuthzenEvaluationResponse);
    expect(res.body.decision).toBe(true);
    const aar = res.body.context.aar;
    expect(aar).toMatchObject({ decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' });
    expect(aar.decision_map.signature).toBeDefined();
    const recorded = await w.call('GET', `/v1/decisions/${aar.policy_decision_id}`);
    expect(recorded.status).toBe(200);
    expect(recorded.body).toMatchObject({
      policy_decision_id: aar.policy_decision_id,
      decision: 'allow_with_constraints',
    });
    const pack = await w.call('GET', `/v1/evidence-packs/${aar.evidence_refs[0]}`, undefined, w.runtimeToken);
    expect(pack.status).toBe(200);
    expect((await w.call('GET', '/v1/audit/verify')).body).toMatchObject({ valid: true });

    // the same forwarded request again: the nonce was spent by the first decision
    const replay = await w.call('POST', '/access/v1/evaluation', evaluation(12, { agent_request: forwarded }), pep);
    expect(replay.body.decision).toBe(false);
    expect(replay.body.context.aar.decision).toBe('deny');
    expect(replay.body.context.aar.reason).toBe('payload_replayed');
  });

  it('denies without the agent signature, and for a signature made for another gateway', async () => {
    const unsigned = await w.call('POST', '/access/v1/evaluation', evaluation(12), pep);
    expect(unsigned.body.decision).toBe(false);
    expect(unsigned.body.context.aar).toMatchObject({ decision: 'deny', reason: 'payload_signature_missing' });

    const text = JSON.stringify({ buy: 'x' });
    const elsewhere = 'https://evil.example.net/other/checkout';
    const headers = { ...(await w.signer.sign({ method: 'POST', url: elsewhere, body: text })) };
    const foreign = await w.call(
      'POST',
      '/access/v1/evaluation',
      evaluation(12, { agent_request: { method: 'POST', target_uri: elsewhere, headers, body: text } }),
      pep,
    );
    expect(foreign.body.decision).toBe(false);
    expect(foreign.body.context.aar.reason).toBe('payload_signature_invalid');
  });

  it('answers require_approval as false with the approval', async () => {
    const res = await w.call(
      'POST',
      '/access/v1/evaluation',
      evaluation(45, { agent_request: await agentRequest({ amount: 45 }) }),
      pep,
    );
    expect(res.body.decision).toBe(false);
    expect(res.body.context.aar.decision).toBe('require_approval');
    expect(res.body.context.aar.approval).toMatchObject({ status: 'pending' });

    // the approval profile: the principal approves, the PEP evaluates again naming the first decision
    const first = res.body.context.aar;
    const approved = await w.call(
      'POST',
      `/v1/approvals/${first.approval.approval_id}/decision`,
      { approve: true },
      w.principalToken,
    );
    expect(approved.status).toBe(200);
    const retry = await w.call(
      'POST',
      '/access/v1/evaluation',
      evaluation(45, {
        policy_decision_id: first.policy_decision_id,
        agent_request: await agentRequest({ amount: 45 }),
      }),
      pep,
    );
    expect(retry.body.decision).toBe(true);
    expect(retry.body.context.aar.decision).toBe('allow_with_constraints');
  });

  it('a batch: defaults, per-item overrides and the three semantics, each decision recorded', async () => {
    const before = await decisionCount();
    const batch = async (semantic?: string) => {
      const items = [];
      for (const amount of [10, 45, 11]) {
        items.push({
          resource: evaluation(amount).resource,
          context: { principal_entity_id: 'ns:entity:person:alice', agent_request: await agentRequest({ amount }) },
        });
      }
      const { subject, action } = evaluation(0);
      return w.call(
        'POST',
        '/access/v1/evaluations',
        { subject, action, evaluations: items, ...(semantic ? { options: { evaluations_semantic: semantic } } : {}) },
        pep,
      );
    };
    const all = await batch();
    expect(all.status).toBe(200);
    expectAuthzenShape(all.body, AuthzenEvaluationsResponse);
    expect(all.body.evaluations.map((e: { decision: boolean }) => e.decision)).toEqual([true, false, true]);
    const firstDeny = await batch('deny_on_first_deny');
    expect(firstDeny.body.evaluations.map((e: { decision: boolean }) => e.decision)).toEqual([true, false]);
    const firstPermit = await batch('permit_on_first_permit');
    expect(firstPermit.body.evaluations.map((e: { decision: boolean }) => e.decision)).toEqual([true]);
    expect(await decisionCount()).toBe(before + 3 + 2 + 1);
  });

  it('refuses bad input naming the field, recording nothing', async () => {
    const before = await decisionCount();
    const noPrincipal = evaluation(12);
    delete (noPrincipal.context as Record<string, unknown>).principal_entity_id;
    const cases: Array<[unknown, string, number]> = [
      [noPrincipal, '/context/principal_entity_id', 400],
      [evaluation(12, {}, 'purchase.teleport'), '/action/name', 400],
      [{ ...evaluation(12), subject: { type: 'user', id: 'x' } }, '/subject/type', 400],
      [evaluation(12.345), '/resource/properties/amount', 400],
      [evaluation(12, { agent_request: { method: 'POST' } }), '/context/agent_request/target_uri', 400],
    ];
    for (const [body, path, status] of cases) {
      const res = await w.call('POST', '/access/v1/evaluation', body, pep);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const malformed = await fetch(`${base}/access/v1/evaluation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pep}`, 'content-type': 'application/json' },
      body: '{"subject": ',
    });
    expect(malformed.status).toBe(400);

    const oversized = await w.call(
      'POST',
      '/access/v1/evaluations',
      { ...evaluation(1), evaluations: Array.from({ length: 101 }, () => ({})) },
      pep,
    );
    expect(oversized.status).toBe(400);
    expect(oversized.body.errors[0].path).toBe('/evaluations');
    // a bad last item refuses the whole batch: the first item is not decided either
    const badLast = await w.call(
      'POST',
      '/access/v1/evaluations',
      { evaluations: [evaluation(10), evaluation(10, {}, 'purchase.teleport')] },
      pep,
    );
    expect(badLast.status).toBe(400);
    expect(badLast.body.errors[0].path).toBe('/evaluations/1/action/name');
    expect(await decisionCount()).toBe(before);
  });

  it('a pep token only evaluates, and a bound one only for its principal', async () => {
    expect((await w.call('POST', '/v1/runtime/authorize', w.purchase(10), pep)).status).toBe(403);
    expect((await w.call('GET', '/v1/decisions', undefined, pep)).status).toBe(403);
    const before = await decisionCount();
    const mixed = await w.call(
      'POST',
      '/access/v1/evaluations',
      {
        evaluations: [evaluation(10), evaluation(10, { principal_entity_id: 'ns:entity:person:bob' })],
      },
      boundPep,
    );
    expect(mixed.status).toBe(403);
    expect(mixed.body.errors[0].path).toBe('/evaluations/1/context/principal_entity_id');
    expect(await decisionCount()).toBe(before);
    const own = await w.call('POST', '/access/v1/evaluation', evaluation(10), boundPep);
    expect(own.status).toBe(200);
    expect(own.body.context.aar.reason).toBe('payload_signature_missing');
  });

  it("searches what the agent's grants allow", async () => {
    const agent = { type: 'agent', id: 'ns:entity:agent:shopper-1' };
    const alice = { principal_entity_id: 'ns:entity:person:alice' };
    const actions = await w.call(
      'POST',
      '/access/v1/search/action',
      { subject: agent, resource: { type: 'purchase' }, context: alice },
      pep,
    );
    expectAuthzenShape(actions.body, AuthzenSearchActionResponse);
    expect(actions.body.results.map((r: { name: string }) => r.name)).toEqual(
      ['compare', 'dispute_prepare', 'execute', 'prepare', 'refund_request', 'request_approval', 'search'].map(
        (a) => `purchase.${a}`,
      ),
    );
    const instruments = await w.call(
      'POST',
      '/access/v1/search/resource',
      { subject: agent, action: { name: 'purchase.execute' }, resource: { type: 'instrument' }, context: alice },
      pep,
    );
    expectAuthzenShape(instruments.body, AuthzenSearchEntityResponse);
    expect(instruments.body.results).toEqual([{ type: 'instrument', id: 'ns:card_token:tok-1' }]);
    const agents = await w.call(
      'POST',
      '/access/v1/search/subject',
      {
        subject: { type: 'agent' },
        action: { name: 'purchase.execute' },
        resource: { type: 'purchase' },
        context: alice,
      },
      pep,
    );
    expect(agents.body.results).toEqual([agent]);
    const foreign = await w.call(
      'POST',
      '/access/v1/search/action',
      { subject: agent, resource: { type: 'purchase' }, context: { principal_entity_id: 'ns:entity:person:bob' } },
      boundPep,
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.errors[0].path).toBe('/context/principal_entity_id');
  });

  it('the TypeScript SDK has a method for each AuthZEN operation', async () => {
    const client = new AarClient({ baseUrl: base, token: pep });
    const config = await client.getAuthzenConfiguration();
    expect(config.access_evaluations_endpoint).toMatch(/\/access\/v1\/evaluations$/);
    const one = await client.authzenEvaluate(evaluation(5) as never);
    expect(one.decision).toBe(false);
    const many = await client.authzenEvaluateMany({ evaluations: [evaluation(5), evaluation(6)] } as never);
    expect('evaluations' in many && many.evaluations).toHaveLength(2);
    const subject = { type: 'agent', id: 'ns:entity:agent:shopper-1' };
    const context = { principal_entity_id: 'ns:entity:person:alice' };
    expect(
      (await client.authzenSearchActions({ subject, resource: { type: 'purchase' }, context })).results,
    ).toHaveLength(7);
    const resources = await client.authzenSearchResources({
      subject,
      action: { name: 'purchase.execute' },
      resource: { type: 'instrument' },
      context,
    });
    expect(resources.results).toEqual([{ type: 'instrument', id: 'ns:card_token:tok-1' }]);
    const subjects = await client.authzenSearchSubjects({
      subject: { type: 'agent' },
      action: { name: 'purchase.execute' },
      resource: { type: 'purchase' },
      context,
    });
    expect(subjects.results).toEqual([subject]);
  });
});
