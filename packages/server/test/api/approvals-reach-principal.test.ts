/**
 * Approvals reach the principal (issue 8, point 8), over a real socket: the principal's app lists what it must
 * approve (`GET /v1/approvals?state=pending`) and nothing of anyone else's; `purchase.request_approval` pushes an
 * approval (`ns.decision.requires_approval`) whose answer the agent's purchase is then judged by; an approval that
 * lapses undecided is announced once (`ns.approval.expired`).
 * The agent signs with the test runtime's clock, so moving the clock moves the agent too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireApprovals } from '../../src/services/approvals/expire-approvals.ts';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const ALICE = 'ns:entity:person:alice';
const BOB = 'ns:entity:person:bob';
const REQUEST_APPROVAL = 'ns:capability:purchase:request_approval';

interface Envelope {
  event_type: string;
  subject_ref: string;
  reason_code: string;
  principal_entity_id: string | null;
  data: Record<string, unknown>;
}

describe('approvals reach the principal', () => {
  const clock = new SteppingClock();
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let bobToken: string;
  let auditorToken: string;

  beforeAll(async () => {
    rt = await startTestRuntime({ clock });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
      signerNow: () => Math.floor(clock.now().getTime() / 1000),
      scope: {
        max_amount_per_purchase: { amount: 500, currency: 'EUR' },
        max_daily_amount: { amount: 10_000, currency: 'EUR' },
        requires_approval_above: { amount: 40, currency: 'EUR' },
        allowed_jurisdictions: ['DE', 'FR'],
        valid_until: inOneYear(),
      },
    });
    await world.must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
    bobToken = (await world.must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: BOB })).token;
    auditorToken = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token;
  });
  afterAll(async () => rt?.close());

  const list = (query: string, token = world.principalToken) =>
    world.call('GET', `/v1/approvals${query}`, undefined, token);
  const requireApproval = async (amount: number) => {
    const res = await world.authorize(world.purchase(amount));
    expect(res.body).toMatchObject({ decision: 'require_approval', reason: 'amount_above_approval_threshold' });
    return res.body as { policy_decision_id: string; approval: { approval_id: string; expires_at: string } };
  };
  const events = async (type: string): Promise<Envelope[]> => {
    const items: Envelope[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await world.call('GET', `/v1/events?limit=500${after ? `&after=${after}` : ''}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      items.push(...(page.body.items as Envelope[]));
      if (!page.body.has_more) break;
      after = page.body.next_cursor;
    }
    return items.filter((e) => e.event_type === type);
  };

  it("lists the principal's pending approvals for its own credential, then no longer once decided", async () => {
    const first = await requireApproval(45);
    const second = await requireApproval(46);
    const pending = await list('?state=pending');
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    const ids = pending.body.items.map((a: { approval_id: string }) => a.approval_id);
    expect(ids).toEqual(expect.arrayContaining([first.approval.approval_id, second.approval.approval_id]));
    const shown = pending.body.items.find((a: { approval_id: string }) => a.approval_id === first.approval.approval_id);
    expect(shown).toMatchObject({
      status: 'pending',
      principal_entity_id: ALICE,
      policy_decision_id: first.policy_decision_id,
      request: { merchant_id: 'grocer-1', amount: { amount: 45, currency: 'EUR' } },
    });

    const decided = await world.call(
      'POST',
      `/v1/approvals/${first.approval.approval_id}/decision`,
      { approve: true },
      world.principalToken,
    );
    expect(decided.status).toBe(200);
    const after = (await list('?state=pending')).body.items.map((a: { approval_id: string }) => a.approval_id);
    expect(after).not.toContain(first.approval.approval_id);
    expect(after).toContain(second.approval.approval_id);
    const approved = (await list('?state=approved')).body.items.map((a: { approval_id: string }) => a.approval_id);
    expect(approved).toContain(first.approval.approval_id);
  });

  it("never shows a principal another principal's approvals: naming one is 403, its own list holds none", async () => {
    expect((await list(`?principal_entity_id=${ALICE}`, bobToken)).status).toBe(403);
    expect((await list(`?principal_entity_id=ns:human:alice`, bobToken)).status).toBe(403);
    const own = await list('?state=pending', bobToken);
    expect(own.status).toBe(200);
    expect(own.body.items).toEqual([]);
    // alice may name herself, in either spelling
    const aliased = await list('?principal_entity_id=ns:human:alice&state=pending', world.principalToken);
    expect(aliased.status).toBe(200);
    expect(aliased.body.items.length).toBeGreaterThan(0);
  });

  it('lets an admin and an auditor list every approval, filtered; refuses the runtime and bad filters', async () => {
    const all = await list('', ADMIN_TOKEN);
    expect(all.status).toBe(200);
    expect(all.body.items.length).toBeGreaterThanOrEqual(2);
    expect((await list(`?principal_entity_id=${BOB}`, ADMIN_TOKEN)).body.items).toEqual([]);
    expect((await list(`?principal_entity_id=${ALICE}`, auditorToken)).body.items.length).toBe(all.body.items.length);
    expect((await list('', world.runtimeToken)).status).toBe(403);
    const bad = await list('?state=waiting', ADMIN_TOKEN);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(bad.body)).toContain('state');
  });

  it('pages with limit and cursor like the other lists', async () => {
    const first = await list('?limit=1', ADMIN_TOKEN);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const next = await list(`?limit=1&cursor=${first.body.next_cursor}`, ADMIN_TOKEN);
    expect(next.body.items).toHaveLength(1);
    expect(next.body.items[0].approval_id).not.toBe(first.body.items[0].approval_id);
  });

  it('purchase.request_approval pushes an approval, and the approved purchase is then allowed once', async () => {
    const ask = await world.authorize(world.purchase(120, { subject: REQUEST_APPROVAL }));
    expect(ask.status, JSON.stringify(ask.body)).toBe(200);
    expect(ask.body).toMatchObject({
      decision: 'allow_with_constraints',
      reason: 'scope_within_attenuated_authority',
      approval: { approval_id: expect.stringMatching(/^ns:approval:/), status: 'pending' },
    });
    const approvalId: string = ask.body.approval.approval_id;

    const pushed = (await events('ns.decision.requires_approval')).find((e) => e.data.approval_id === approvalId);
    expect(pushed).toMatchObject({
      subject_ref: ask.body.policy_decision_id,
      principal_entity_id: ALICE,
      reason_code: 'scope_within_attenuated_authority',
      data: {
        policy_decision_id: ask.body.policy_decision_id,
        decision: 'allow_with_constraints',
        subject: REQUEST_APPROVAL,
        amount: { amount: 120, currency: 'EUR' },
        expires_at: ask.body.approval.expires_at,
      },
    });

    const pending = (await list('?state=pending')).body.items.find(
      (a: { approval_id: string }) => a.approval_id === approvalId,
    );
    expect(pending.request).toMatchObject({
      subject: 'ns:capability:payment_action:card_purchase',
      amount: { amount: 120, currency: 'EUR' },
    });

    // before the principal answers, the purchase that names it is still pending
    const early = await world.authorize(world.purchase(120, { policy_decision_id: ask.body.policy_decision_id }));
    expect(early.body).toMatchObject({ decision: 'require_approval', reason: 'approval_pending' });

    expect(
      (await world.call('POST', `/v1/approvals/${approvalId}/decision`, { approve: true }, world.principalToken))
        .status,
    ).toBe(200);
    const other = await world.authorize(world.purchase(121, { policy_decision_id: ask.body.policy_decision_id }));
    expect(other.body).toMatchObject({ decision: 'deny', reason: 'approval_mismatch' });
    const buy = await world.authorize(world.purchase(120, { policy_decision_id: ask.body.policy_decision_id }));
    expect(buy.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'approved_by_principal' });
    const again = await world.authorize(world.purchase(120, { policy_decision_id: ask.body.policy_decision_id }));
    expect(again.body).toMatchObject({ decision: 'deny', reason: 'approval_expired' });
  });

  it('a request_approval allowed on an approval already granted pushes nothing new', async () => {
    // elevated risk turns the ask itself into require_approval; once granted, its retry is an ordinary allow
    const agent = 'ns:entity:agent:shopper-1';
    await world.must('POST', '/v1/risk-signals', { entity_id: agent, risk_state: 'elevated' });
    const ask = await world.authorize(world.purchase(30, { subject: REQUEST_APPROVAL }));
    await world.must('POST', '/v1/risk-signals', { entity_id: agent, risk_state: 'normal' });
    expect(ask.body).toMatchObject({ decision: 'require_approval', reason: 'risk_state_elevated' });
    const approvalId: string = ask.body.approval.approval_id;
    expect(
      (await world.call('POST', `/v1/approvals/${approvalId}/decision`, { approve: true }, world.principalToken))
        .status,
    ).toBe(200);
    const before = (await events('ns.decision.requires_approval')).length;
    const retry = await world.authorize(
      world.purchase(30, { subject: REQUEST_APPROVAL, policy_decision_id: ask.body.policy_decision_id }),
    );
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'approved_by_principal' });
    expect(retry.body).not.toHaveProperty('approval');
    expect((await events('ns.decision.requires_approval')).length).toBe(before);
    const allowed = (await events('ns.purchase_authority.allowed')).find(
      (e) => e.subject_ref === retry.body.policy_decision_id,
    );
    expect(allowed).toBeDefined();
  });

  it('a denied request_approval pushes nothing', async () => {
    const before = (await events('ns.decision.requires_approval')).length;
    const denied = await world.authorize(
      world.purchase(120, {
        subject: REQUEST_APPROVAL,
        resource: { merchant_id: 'nowhere-1', amount: 120, currency: 'EUR' },
      }),
    );
    expect(denied.body).toMatchObject({ decision: 'deny', reason: 'merchant_unknown' });
    expect(denied.body).not.toHaveProperty('approval');
    expect((await events('ns.decision.requires_approval')).length).toBe(before);
  });

  it('announces an approval that lapsed undecided once, and lists it as expired', async () => {
    const lapsing = await requireApproval(47);
    expect(await expireApprovals(rt.ctx)).toBe(0); // nothing has lapsed yet
    clock.advance(15 * 60 + 1);
    const announced = await expireApprovals(rt.ctx);
    expect(announced).toBeGreaterThanOrEqual(1);
    expect(await expireApprovals(rt.ctx)).toBe(0); // never twice
    const expired = (await events('ns.approval.expired')).filter((e) => e.subject_ref === lapsing.approval.approval_id);
    expect(expired).toEqual([
      expect.objectContaining({
        reason_code: 'approval_expired',
        principal_entity_id: ALICE,
        data: { policy_decision_id: lapsing.policy_decision_id, previous_state: 'pending', new_state: 'expired' },
      }),
    ]);
    const pendingIds = (await list('?state=pending')).body.items.map((a: { approval_id: string }) => a.approval_id);
    expect(pendingIds).not.toContain(lapsing.approval.approval_id);
    const expiredIds = (await list('?state=expired')).body.items.map((a: { approval_id: string }) => a.approval_id);
    expect(expiredIds).toContain(lapsing.approval.approval_id);
    // an approved approval that was used is not announced as lapsed
    const lapsedEvents = await events('ns.approval.expired');
    expect(lapsedEvents.every((e) => e.data.previous_state === 'pending')).toBe(true);
  });
});
