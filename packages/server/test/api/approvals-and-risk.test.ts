/**
 * The issue's approval and risk claims over a real socket (SQLite): rejected and expired approvals, who may read and
 * decide an approval, risk signals (blocked, elevated, lapsing, cleared, refused), suspension of the agent, the
 * principal and the card token without rewriting the grant; and that each of these changes, every decision and
 * every outcome leaves its event in GET /v1/events.
 * The agent signs with the test runtime's clock, so moving the clock moves the agent too (no `payload_stale`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld, type CallResult } from '../support/purchase-world.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const AGENT = 'ns:entity:agent:shopper-1';
const ALICE = 'ns:entity:person:alice';
const CARD = 'ns:card_token:tok-1';
const APPROVAL_TTL_SECONDS = 15 * 60;

const DECISION_EVENT: Record<string, string> = {
  allow_with_constraints: 'ns.purchase_authority.allowed',
  deny: 'ns.purchase_authority.denied',
  require_approval: 'ns.decision.requires_approval',
};

interface Envelope {
  event_type: string;
  subject_ref: string;
  reason_code: string;
  data: Record<string, unknown>;
}

describe('approvals and risk signals', () => {
  const clock = new SteppingClock();
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let bobToken: string;

  // what the tests changed, in order; the last test finds each in the event log
  const decisions: Array<{ id: string; decision: string; reason: string }> = [];
  const approvalDecisions: Array<{ id: string; status: string }> = [];
  const riskChanges: Array<{ subject: string; state: string }> = [];
  const outcomes: Array<{ id: string; outcome: string }> = [];

  beforeAll(async () => {
    rt = await startTestRuntime({ clock });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
      signerNow: () => Math.floor(clock.now().getTime() / 1000),
      // a daily budget no test reaches: only the checks under test decide
      scope: {
        max_amount_per_purchase: { amount: 500, currency: 'EUR' },
        max_daily_amount: { amount: 10_000, currency: 'EUR' },
        requires_approval_above: { amount: 40, currency: 'EUR' },
        allowed_jurisdictions: ['DE', 'FR'],
        valid_until: inOneYear(),
      },
    });
    await world.must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
    bobToken = (
      await world.must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:person:bob' })
    ).token;
  });
  afterAll(async () => rt?.close());

  const authorize = async (amount: number, extra: Record<string, unknown> = {}) => {
    const res = await world.authorize(world.purchase(amount, extra));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    decisions.push({ id: res.body.policy_decision_id, decision: res.body.decision, reason: res.body.reason });
    return res.body;
  };
  const decideApproval = async (approvalId: string, approve: boolean, token = world.principalToken) => {
    const res = await world.call('POST', `/v1/approvals/${approvalId}/decision`, { approve }, token);
    if (res.status === 200) approvalDecisions.push({ id: approvalId, status: res.body.status });
    return res;
  };
  const readApproval = (approvalId: string, token = world.principalToken) =>
    world.call('GET', `/v1/approvals/${approvalId}`, undefined, token);
  const setRisk = async (body: Record<string, unknown>): Promise<CallResult> => {
    const res = await world.call('POST', '/v1/risk-signals', body, world.runtimeToken);
    if (res.status === 200) riskChanges.push({ subject: res.body.entity_id, state: res.body.risk_state });
    return res;
  };
  const report = async (id: string, outcome: string) => {
    const res = await world.call(
      'POST',
      '/v1/runtime/outcomes',
      { policy_decision_id: id, outcome },
      world.runtimeToken,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    outcomes.push({ id, outcome });
    return res.body;
  };
  const allEvents = async (): Promise<Envelope[]> => {
    const out: Envelope[] = [];
    let cursor: string | null = null;
    let more = true;
    while (more) {
      const page: CallResult = await world.call(
        'GET',
        `/v1/events?limit=500${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).toBe(200);
      out.push(...(page.body.items as Envelope[]));
      cursor = page.body.next_cursor; // always set: the position reached (docs/events.md)
      more = page.body.has_more;
    }
    return out;
  };

  it('denies the retry of a rejected approval, and a decided approval cannot change', async () => {
    const first = await authorize(45);
    expect(first).toMatchObject({
      decision: 'require_approval',
      reason: 'amount_above_approval_threshold',
      approval: { status: 'pending' },
    });
    const { approval_id } = first.approval;
    const rejected = await decideApproval(approval_id, false);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', decided_at: expect.any(String) });

    expect(await authorize(45, { policy_decision_id: first.policy_decision_id })).toMatchObject({
      decision: 'deny',
      reason: 'approval_rejected',
    });
    const late = await decideApproval(approval_id, true);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('conflict');
    expect((await readApproval(approval_id)).body.status).toBe('rejected');
  });

  it('lets an approval wait 15 minutes and no longer: then approval_expired, and deciding it is 409', async () => {
    const first = await authorize(46);
    expect(first.decision).toBe('require_approval');
    const { approval_id, expires_at } = first.approval;
    expect(Date.parse(expires_at) - clock.now().getTime()).toBeGreaterThan((APPROVAL_TTL_SECONDS - 5) * 1000);
    expect(Date.parse(expires_at) - clock.now().getTime()).toBeLessThanOrEqual(APPROVAL_TTL_SECONDS * 1000);
    const retry = { policy_decision_id: first.policy_decision_id };

    clock.advance(APPROVAL_TTL_SECONDS - 60);
    expect(await authorize(46, retry)).toMatchObject({ decision: 'require_approval', reason: 'approval_pending' });

    clock.advance(61);
    expect((await readApproval(approval_id)).body.status).toBe('expired');
    expect(await authorize(46, retry)).toMatchObject({ decision: 'deny', reason: 'approval_expired' });
    const late = await decideApproval(approval_id, true);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('conflict');
    expect(await authorize(46, retry)).toMatchObject({ decision: 'deny', reason: 'approval_expired' });
  });

  it('expires an approved approval that is not used in time', async () => {
    const first = await authorize(47);
    expect((await decideApproval(first.approval.approval_id, true)).status).toBe(200);
    clock.advance(APPROVAL_TTL_SECONDS + 1);
    expect(await authorize(47, { policy_decision_id: first.policy_decision_id })).toMatchObject({
      decision: 'deny',
      reason: 'approval_expired',
    });
  });

  it('refuses a principal credential of another principal to read or decide the approval (403)', async () => {
    const first = await authorize(48);
    const { approval_id } = first.approval;
    const read = await readApproval(approval_id, bobToken);
    expect(read.status).toBe(403);
    expect(read.body.code).toBe('forbidden');
    expect(JSON.stringify(read.body)).not.toContain(first.policy_decision_id);
    for (const approve of [true, false]) {
      const decided = await decideApproval(approval_id, approve, bobToken);
      expect(decided.status).toBe(403);
      expect(decided.body.code).toBe('forbidden');
    }
    // nothing changed: alice still sees it pending, and the retry still waits
    expect((await readApproval(approval_id)).body).toMatchObject({ status: 'pending', decided_at: null });
    expect(await authorize(48, { policy_decision_id: first.policy_decision_id })).toMatchObject({
      reason: 'approval_pending',
    });
  });

  it('denies while the agent is blocked, and allows again once the risk is set back to normal', async () => {
    const blocked = await setRisk({ entity_id: AGENT, risk_state: 'blocked', reason: 'velocity' });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({
      entity_id: AGENT,
      risk_state: 'blocked',
      reason: 'velocity',
      expires_at: null,
    });
    expect(await authorize(10)).toMatchObject({ decision: 'deny', reason: 'risk_state_blocked' });
    // an approval does not lift a block
    expect(await authorize(45)).toMatchObject({ decision: 'deny', reason: 'risk_state_blocked' });

    expect((await setRisk({ entity_id: AGENT, risk_state: 'normal' })).status).toBe(200);
    expect(await authorize(10)).toMatchObject({
      decision: 'allow_with_constraints',
      reason: 'scope_within_attenuated_authority',
    });
  });

  it('requires approval while the card token is elevated; the approved retry is allowed', async () => {
    expect((await setRisk({ entity_id: CARD, risk_state: 'elevated' })).status).toBe(200);
    // however the agent names the card token, its risk state applies
    expect(await authorize(10, { scope: { instrument: 'ns:credential:card-token:tok-1' } })).toMatchObject({
      decision: 'require_approval',
      reason: 'risk_state_elevated',
    });
    const first = await authorize(10);
    expect(first).toMatchObject({
      decision: 'require_approval',
      reason: 'risk_state_elevated',
      approval: { status: 'pending' },
    });
    const retry = { policy_decision_id: first.policy_decision_id };
    expect(await authorize(10, retry)).toMatchObject({ decision: 'require_approval', reason: 'approval_pending' });
    expect((await decideApproval(first.approval.approval_id, true)).body.status).toBe('approved');
    expect(await authorize(10, retry)).toMatchObject({
      decision: 'allow_with_constraints',
      reason: 'approved_by_principal',
    });
    // one approval, one purchase
    expect(await authorize(10, retry)).toMatchObject({ decision: 'deny', reason: 'approval_expired' });

    expect((await setRisk({ entity_id: CARD, risk_state: 'normal' })).status).toBe(200);
    expect((await authorize(10)).decision).toBe('allow_with_constraints');
  });

  it('lets a risk state with expires_at lapse back to normal once the clock passes it', async () => {
    const until = new Date(clock.now().getTime() + 60_000).toISOString();
    const set = await setRisk({ entity_id: ALICE, risk_state: 'blocked', expires_at: until });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ risk_state: 'blocked', expires_at: until });
    expect(await authorize(10)).toMatchObject({ decision: 'deny', reason: 'risk_state_blocked' });
    clock.advance(30);
    expect(await authorize(10)).toMatchObject({ decision: 'deny', reason: 'risk_state_blocked' });
    clock.advance(31);
    expect(await authorize(10)).toMatchObject({
      decision: 'allow_with_constraints',
      reason: 'scope_within_attenuated_authority',
    });
    // the next signal's event names the state that was in force: the lapsed block was already normal
    expect((await setRisk({ entity_id: ALICE, risk_state: 'elevated' })).status).toBe(200);
    expect((await setRisk({ entity_id: ALICE, risk_state: 'normal' })).status).toBe(200);
    const changes = (await allEvents()).filter((e) => e.event_type === 'ns.risk.state_changed').slice(-2);
    expect(changes.map((e) => [e.subject_ref, e.data.previous_state, e.data.new_state])).toEqual([
      [ALICE, 'normal', 'elevated'],
      [ALICE, 'elevated', 'normal'],
    ]);
  });

  it('refuses bad risk signals and changes nothing', async () => {
    const riskEventsBefore = (await allEvents()).filter((e) => e.event_type === 'ns.risk.state_changed').length;
    const past = new Date(clock.now().getTime() - 1000).toISOString();
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ entity_id: 'ns:entity:agent:ghost', risk_state: 'blocked' }, 422, 'reference_not_found', '/entity_id'],
      [{ entity_id: 'ns:card_token:no-such-card', risk_state: 'blocked' }, 422, 'reference_not_found', '/entity_id'],
      [{ entity_id: 'shopper-1 ; drop', risk_state: 'blocked' }, 400, 'invalid_id', '/entity_id'],
      [{ entity_id: AGENT, risk_state: 'blocked', expires_at: past }, 400, 'invalid_request', '/expires_at'],
      [{ entity_id: AGENT, risk_state: 'blocked', expires_at: 'tomorrow' }, 400, 'invalid_request', '/expires_at'],
      [{ entity_id: AGENT, risk_state: 'panic' }, 400, 'invalid_request', '/risk_state'],
    ];
    for (const [body, status, code, path] of cases) {
      const res = await setRisk(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code, JSON.stringify(body)).toBe(code);
      expect(
        res.body.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect(await authorize(10)).toMatchObject({ decision: 'allow_with_constraints' });
    const riskEventsAfter = (await allEvents()).filter((e) => e.event_type === 'ns.risk.state_changed').length;
    expect(riskEventsAfter).toBe(riskEventsBefore);
  });

  it('denies while the agent, the principal or the card token is suspended, without rewriting the grant', async () => {
    const grantBefore = await world.must('GET', `/v1/grants/${world.grant.grant_id}`);
    expect(grantBefore.state).toBe('active');
    const cases: Array<[string, string]> = [
      [`/v1/entities/${AGENT}`, 'actor_inactive'],
      [`/v1/entities/${ALICE}`, 'principal_inactive'],
      [`/v1/card-tokens/${CARD}`, 'instrument_inactive'],
    ];
    for (const [path, reason] of cases) {
      expect((await world.must('POST', `${path}/suspend`)).state).toBe('suspended');
      expect(await authorize(10), path).toMatchObject({ decision: 'deny', reason, stop_conditions: [] });
      expect((await world.must('POST', `${path}/activate`)).state).toBe('active');
      expect(await authorize(10), path).toMatchObject({
        decision: 'allow_with_constraints',
        reason: 'scope_within_attenuated_authority',
      });
    }
    const grantAfter = await world.must('GET', `/v1/grants/${world.grant.grant_id}`);
    expect(grantAfter.updated_at).toBe(grantBefore.updated_at);
    expect(grantAfter.link).toEqual(grantBefore.link);
    expect(grantAfter).toEqual(grantBefore);
  });

  it('records outcomes', async () => {
    const a = await authorize(10);
    const b = await authorize(11);
    expect(await report(a.policy_decision_id, 'executed')).toMatchObject({ outcome: 'executed', released: null });
    expect(await report(a.policy_decision_id, 'refunded')).toMatchObject({ outcome: 'refunded' });
    expect(await report(b.policy_decision_id, 'failed')).toMatchObject({ outcome: 'failed' });
  });

  it('shows every decision, approval decision, risk change and outcome in GET /v1/events, with its type', async () => {
    expect(decisions.length).toBeGreaterThan(30);
    const events = await allEvents();
    const about = (subject: string, type: string) =>
      events.filter((e) => e.subject_ref === subject && e.event_type === type);

    const decisionTypes = new Set(Object.values(DECISION_EVENT));
    for (const d of decisions) {
      // outcomes are events about the decision too; here, the decision's own event
      const found = events.filter((e) => e.subject_ref === d.id && decisionTypes.has(e.event_type));
      expect(found, `${d.decision} ${d.reason}`).toHaveLength(1);
      expect(found[0]).toMatchObject({
        event_type: DECISION_EVENT[d.decision],
        reason_code: d.reason,
        data: { policy_decision_id: d.id, decision: d.decision },
      });
      if (d.decision === 'require_approval' && d.reason !== 'approval_pending') {
        expect(found[0]!.data.approval_id).toMatch(/^ns:approval:/);
      }
    }
    expect(approvalDecisions.map((a) => a.status).sort()).toEqual(['approved', 'approved', 'rejected']);
    for (const a of approvalDecisions) {
      expect(about(a.id, `ns.approval.${a.status}`), a.id).toHaveLength(1);
    }
    expect(
      events
        .filter((e) => e.event_type === 'ns.risk.state_changed')
        .map((e) => ({ subject: e.subject_ref, state: e.data.new_state })),
    ).toEqual(riskChanges);
    expect(riskChanges).toHaveLength(7);
    expect(
      events
        .filter((e) => /^ns\.purchase_authority\.(executed|failed|refunded)$/.test(e.event_type))
        .map((e) => ({ id: e.subject_ref, outcome: e.event_type.split('.').pop() })),
    ).toEqual(outcomes);
    expect(outcomes).toHaveLength(3);
  });
});
