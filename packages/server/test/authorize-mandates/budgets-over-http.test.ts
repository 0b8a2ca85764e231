/**
 * A grant's cumulative budget (`scope.budget`, aar-decide/1.4.0) over real HTTP, on SQLite and PostgreSQL: purchases
 * count against it across the days of its period (the spend counters of every day since the period's start), a
 * purchase that would pass it is `budget_exceeded`, a failed or refunded purchase gives its amount back (also one
 * made on an earlier day), a new period starts from zero, and a delegated grant's purchases count against its
 * parent's budget. The snapshot records `budget_spent` for the budgeted link only, and the evidence pack replays.
 */
import { createPrivateKey, randomBytes, sign as nodeSign } from 'node:crypto';
import { buildDelegationStatement, signDocument } from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

/** A clock the test sets: a Wednesday of ISO week 2027-W02 (Monday 2027-01-11). */
class SetClock implements Clock {
  at = Date.parse('2027-01-13T10:00:00Z');
  now(): Date {
    return new Date(this.at);
  }
  set(iso: string): void {
    this.at = Date.parse(iso);
  }
}

type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;

for (const dialect of await testDialects()) {
  describe(`budgets over HTTP (${dialect})`, () => {
    const clock = new SetClock();
    let rt: TestRuntime;
    let world: World;

    beforeAll(async () => {
      // the helpers below have no registered key: their requests are unsigned
      rt = await startTestRuntime({ dialect, clock, config: { requireSignedRequests: false } });
      const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
      world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
        signerNow: () => Math.floor(clock.at / 1000),
        scope: {
          max_amount_per_purchase: { amount: 50, currency: 'EUR' },
          max_daily_amount: { amount: 1000, currency: 'EUR' },
          budget: { amount: 100, currency: 'EUR', period: 'week' },
          allowed_jurisdictions: ['DE'],
          may_delegate: true,
          max_delegation_depth: 1,
          valid_until: '2028-01-01T00:00:00Z',
        },
      });
    }, 60_000);
    afterAll(async () => rt?.close());

    const buy = async (amount: number) => {
      const res = await world.authorize(world.purchase(amount));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { decision: string; reason: string; policy_decision_id: string; evidence_refs: string[] };
    };
    const outcome = (id: string, value: 'failed' | 'refunded' | 'executed') =>
      world.must('POST', '/v1/runtime/outcomes', { policy_decision_id: id, outcome: value }, world.runtimeToken);
    /** POST /v1/grants under the world's grant, the delegation signed by its agent (shopper-1) */
    const delegate = async (to: string, scope: Record<string, unknown>) => {
      await world.must('POST', '/v1/entities', { type: 'agent', id: to, display_name: to });
      const request = { parent_grant_id: world.grant.grant_id, actor_entity_id: `ns:entity:agent:${to}`, scope };
      const key = createPrivateKey({ key: world.privateJwk, format: 'jwk' });
      const created = clock.now().toISOString();
      const nonce = `n-${randomBytes(18).toString('base64url').replace(/[0-9]/g, 'x')}`;
      const signed = await signDocument(
        buildDelegationStatement({ delegator_entity_id: 'ns:entity:agent:shopper-1', created, nonce, request }),
        { keyId: 'ns:entity:agent:shopper-1', sign: async (m) => new Uint8Array(nodeSign(null, m, key)) },
      );
      return world.must('POST', '/v1/grants', {
        ...request,
        delegator_proof: { created, nonce, signature: signed.signature },
      });
    };
    const packOf = async (d: { evidence_refs: string[] }) =>
      world.must('GET', `/v1/evidence-packs/${d.evidence_refs[0]}`);

    it('counts every day of the week, gives back released money, and starts again next week', async () => {
      const first = await buy(40);
      expect(first.decision).toBe('allow_with_constraints');
      expect((await buy(40)).decision).toBe('allow_with_constraints');
      const over = await buy(30);
      expect([over.decision, over.reason]).toEqual(['deny', 'budget_exceeded']);

      // the next day of the same week: yesterday's 80.00 still counts
      clock.set('2027-01-14T09:00:00Z');
      const exact = await buy(20);
      expect([exact.decision, exact.reason]).toEqual(['allow_with_constraints', 'scope_within_attenuated_authority']);
      const pack = await packOf(exact);
      expect(pack.snapshot.grants[0].budget_spent).toEqual({ minor: 8000, currency: 'EUR' });
      expect((await buy(1)).reason).toBe('budget_exceeded');

      // yesterday's first purchase failed: its 40.00 are given back to the budget
      await outcome(first.policy_decision_id, 'failed');
      const after = await buy(40);
      expect(after.decision).toBe('allow_with_constraints');
      expect((await packOf(after)).snapshot.grants[0].budget_spent).toEqual({ minor: 6000, currency: 'EUR' });
      expect((await buy(1)).reason).toBe('budget_exceeded');

      // a refund after execution gives it back too
      await outcome(after.policy_decision_id, 'executed');
      expect((await buy(10)).reason).toBe('budget_exceeded');
      await outcome(after.policy_decision_id, 'refunded');
      expect((await buy(10)).decision).toBe('allow_with_constraints');

      // Monday of the next ISO week: a new period
      clock.set('2027-01-18T00:00:05Z');
      const fresh = await buy(50);
      expect(fresh.decision).toBe('allow_with_constraints');
      expect((await packOf(fresh)).snapshot.grants[0].budget_spent).toEqual({ minor: 0, currency: 'EUR' });
    });

    it('replays a budget decision from its evidence pack', async () => {
      const denied = await buy(60); // above the per-purchase limit: the amount check names that first
      expect(denied.reason).toBe('amount_above_agent_threshold');
      expect((await buy(50)).decision).toBe('allow_with_constraints'); // exactly the budget
      const over = await buy(1);
      expect(over.reason).toBe('budget_exceeded');
      const verified = await world.must('POST', '/v1/evidence-packs/verify', await packOf(over));
      expect(verified.valid, JSON.stringify(verified.checks)).toBe(true);
      expect(verified.replay_decision.reason).toBe('budget_exceeded');
    });

    it("counts a delegated grant's purchases against its parent's budget, and fills budget_spent for that link only", async () => {
      const child = await delegate('helper-1', { max_amount_per_purchase: { amount: 30, currency: 'EUR' } });
      const helperBuy = async (amount: number) =>
        (
          await world.call(
            'POST',
            '/v1/runtime/authorize',
            { ...world.purchase(amount), actor_entity_id: 'ns:entity:agent:helper-1' },
            world.runtimeToken,
          )
        ).body as { decision: string; reason: string; evidence_refs: string[] };
      // a new week (2027-W04): the helper and the parent's agent share the parent's 100.00
      clock.set('2027-01-26T12:00:00Z');
      expect((await helperBuy(30)).decision).toBe('allow_with_constraints');
      expect((await helperBuy(30)).decision).toBe('allow_with_constraints');
      expect((await helperBuy(20)).decision).toBe('allow_with_constraints');
      const last = await helperBuy(30);
      expect([last.decision, last.reason]).toEqual(['deny', 'budget_exceeded']);
      const pack = await packOf(last);
      const [parent, leaf] = pack.snapshot.grants;
      expect(leaf.grant_id).toBe(child.grant_id);
      expect(parent.budget_spent).toEqual({ minor: 8000, currency: 'EUR' });
      expect(leaf.budget_spent).toBeUndefined();
      // the parent's own agent sees the helper's purchases too
      expect((await buy(25)).reason).toBe('budget_exceeded');
      expect((await buy(20)).decision).toBe('allow_with_constraints');
    });

    it("enforces a delegated grant's own budget (no daily limit of its own) over its subtree", async () => {
      clock.set('2027-02-03T12:00:00Z'); // a new month
      const child = await delegate('helper-2', { budget: { amount: 45, currency: 'EUR', period: 'month' } });
      const helperBuy = async (amount: number) =>
        (
          await world.call(
            'POST',
            '/v1/runtime/authorize',
            { ...world.purchase(amount), actor_entity_id: 'ns:entity:agent:helper-2' },
            world.runtimeToken,
          )
        ).body as { decision: string; reason: string; evidence_refs: string[] };
      expect((await helperBuy(30)).decision).toBe('allow_with_constraints');
      clock.set('2027-02-20T12:00:00Z');
      const last = await helperBuy(20);
      expect([last.decision, last.reason]).toEqual(['deny', 'budget_exceeded']);
      const [parent, leaf] = (await packOf(last)).snapshot.grants;
      expect(leaf.grant_id).toBe(child.grant_id);
      expect(leaf.budget_spent).toEqual({ minor: 3000, currency: 'EUR' });
      expect(parent.budget_spent).toEqual({ minor: 0, currency: 'EUR' }); // the parent's week (2027-W07) is new
      expect((await helperBuy(15)).decision).toBe('allow_with_constraints');

      // an attacker with the database lowers an earlier day's counter of the month: refused, fail closed
      await bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
        await db
          .updateTable('spend_counters')
          .set({ reserved_minor: 0 })
          .where('grant_id', '=', child.grant_id)
          .where('day', '=', '2027-02-03')
          .execute();
      });
      const refused = await world.call(
        'POST',
        '/v1/runtime/authorize',
        { ...world.purchase(1), actor_entity_id: 'ns:entity:agent:helper-2' },
        world.runtimeToken,
      );
      expect(refused.status).toBe(503);
      expect(refused.body.integrity).toEqual({
        table: 'spend_counters',
        id: `${child.grant_id} 2027-02-03`,
        column: 'reserved_minor',
      });
    });
  });
}
