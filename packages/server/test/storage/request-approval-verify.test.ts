/**
 * Decisions the audit chain once called tampered, on each database. An allowed `purchase.request_approval` creates
 * and pushes an approval (services/authorize/commit-decision.ts): the record checkers expect exactly what the
 * decision wrote (an approval on that allowed decision, its `ns.decision.requires_approval` entry, an approval bound
 * to the purchase itself), and still flag an approval on an allowed decision that creates none. A decision allowed by
 * an alternative covering chain names that chain's leaf (found by audit-chain-property.test.ts).
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDialects } from '../support/dialects.ts';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();
const REQUEST_APPROVAL = 'ns:capability:purchase:request_approval';

describe.each(dialects)('an allowed request_approval and GET /v1/audit/verify on %s', (dialect) => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
      scope: {
        max_amount_per_purchase: { amount: 500, currency: 'EUR' },
        max_daily_amount: { amount: 10_000, currency: 'EUR' },
        requires_approval_above: { amount: 40, currency: 'EUR' },
        allowed_jurisdictions: ['DE'],
        valid_until: inOneYear(),
      },
    });
  });
  afterEach(async () => rt?.close());

  const verify = async () => (await world.call('GET', '/v1/audit/verify')).body;

  it('verifies after the ask, its approval, and the purchase it allows', async () => {
    const ask = await world.authorize(world.purchase(120, { subject: REQUEST_APPROVAL }));
    expect(ask.body).toMatchObject({ decision: 'allow_with_constraints', approval: { status: 'pending' } });
    expect(await verify()).toMatchObject({ valid: true });
    const approvalId: string = ask.body.approval.approval_id;
    const decided = await world.call(
      'POST',
      `/v1/approvals/${approvalId}/decision`,
      { approve: true },
      world.principalToken,
    );
    expect(decided.status).toBe(200);
    const buy = await world.authorize(world.purchase(120, { policy_decision_id: ask.body.policy_decision_id }));
    expect(buy.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'approved_by_principal' });
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('verifies a decision allowed by an alternative grant chain (not the newest covering grant)', async () => {
    const newer = await world.must('POST', '/v1/grants', {
      principal_entity_id: 'ns:entity:person:alice',
      actor_entity_id: 'ns:entity:agent:shopper-1',
      capability_id: 'ns:capability:payment_action:card_purchase',
      resource_id: 'ns:credential:card-token:tok-1',
      scope: {
        max_amount_per_purchase: { amount: 500, currency: 'EUR' },
        max_daily_amount: { amount: 10_000, currency: 'EUR' },
        requires_approval_above: { amount: 20, currency: 'EUR' },
        valid_until: inOneYear(),
      },
    });
    const buy = await world.authorize(world.purchase(30));
    // the newest grant would hold it for approval; the older one allows it, and decide keeps the most permissive
    expect(buy.body).toMatchObject({ decision: 'allow_with_constraints' });
    const row = await rt.ctx.store.db
      .selectFrom('decisions')
      .select('leaf_grant_id')
      .where('policy_decision_id', '=', buy.body.policy_decision_id)
      .executeTakeFirstOrThrow();
    expect(row.leaf_grant_id).toBe(world.grant.grant_id);
    expect(row.leaf_grant_id).not.toBe(newer.grant_id);
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('verifies while purchases, outcomes, risk signals and approvals commit (states move under it)', async () => {
    const buying = (async () => {
      for (let i = 0; i < 12; i++) {
        const buy = await world.authorize(world.purchase(5 + i));
        expect(buy.body).toMatchObject({ decision: 'allow_with_constraints' });
        const outcome = i % 2 === 0 ? 'failed' : 'executed';
        const res = await world.call(
          'POST',
          '/v1/runtime/outcomes',
          { policy_decision_id: buy.body.policy_decision_id, outcome },
          world.runtimeToken,
        );
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        // a risk signal (normal: purchases go on) and, every third time, an approval asked, answered and spent
        await world.must('POST', '/v1/risk-signals', { entity_id: 'ns:entity:agent:shopper-1', risk_state: 'normal' });
        if (i % 3 === 0) {
          const held = await world.authorize(world.purchase(45));
          const approval = held.body.approval.approval_id;
          await world.call('POST', `/v1/approvals/${approval}/decision`, { approve: true }, world.principalToken);
          const spent = await world.authorize(world.purchase(45, { policy_decision_id: held.body.policy_decision_id }));
          expect(spent.body).toMatchObject({ reason: 'approved_by_principal' });
        }
      }
    })();
    let done = false;
    void buying.finally(() => (done = true)).catch(() => undefined);
    const verifying = (async () => {
      const answers = [];
      while (!done) answers.push(await verify());
      return answers;
    })();
    const [, answers] = await Promise.all([buying, verifying]);
    expect(answers.length).toBeGreaterThan(2);
    for (const answer of answers) expect(answer, JSON.stringify(answer)).toMatchObject({ valid: true });
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('still flags an approval id on an allowed execute that created none', async () => {
    const ask = await world.authorize(world.purchase(120, { subject: REQUEST_APPROVAL }));
    const plain = await world.authorize(world.purchase(10));
    expect(plain.body).toMatchObject({ decision: 'allow_with_constraints' });
    await bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
      await sql`update decisions set approval_id = ${ask.body.approval.approval_id}
                where policy_decision_id = ${plain.body.policy_decision_id}`.execute(db);
    });
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      record: { table: 'decisions', id: plain.body.policy_decision_id },
      detail: 'approval_id',
    });
  });
});
