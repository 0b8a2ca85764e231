/**
 * Several grants cover one request (issue 8, point 9), end to end over a real socket with grants made through the
 * API: a newer grant in USD beside the older EUR one no longer turns EUR purchases into `currency_mismatch`. The
 * answer, its signed map, its event, its reservation and its recorded snapshot all name the grant that decided, and
 * decide re-run offline on the recorded snapshot gives the recorded answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '@aar/core';
import type { DecisionRecord } from '../../src/services/decisions/decision-record.ts';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

describe('several grants covering one request', () => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let eurGrant: string;
  let usdGrant: string;

  beforeAll(async () => {
    rt = await startTestRuntime();
    world = await buildPurchaseWorld(await rt.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
    eurGrant = world.grant.grant_id;
    // the newer grant, in another currency
    usdGrant = (
      await world.must('POST', '/v1/grants', {
        principal_entity_id: 'ns:entity:person:alice',
        actor_entity_id: 'ns:entity:agent:shopper-1',
        capability_id: 'ns:capability:payment_action:card_purchase',
        resource_id: 'ns:credential:card-token:tok-1',
        scope: {
          max_amount_per_purchase: { amount: 500, currency: 'USD' },
          max_daily_amount: { amount: 1000, currency: 'USD' },
          allowed_jurisdictions: ['DE'],
          valid_until: inOneYear(),
        },
      })
    ).grant_id;
  });
  afterAll(async () => rt?.close());

  const record = async (id: string): Promise<DecisionRecord> => {
    const res = await world.call('GET', `/v1/decisions/${id}`);
    expect(res.status).toBe(200);
    return res.body as DecisionRecord;
  };
  const eur = (amount: number) => world.purchase(amount);
  const usd = (amount: number) =>
    world.purchase(amount, { resource: { merchant_id: 'grocer-1', amount, currency: 'USD' } });

  it('allows a EUR purchase under the older EUR grant, and everything names that grant', async () => {
    const res = await world.authorize(eur(30));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' });
    const delegation = res.body.decision_map.nodes.find((n: { type: string }) => n.type === 'delegation');
    expect(delegation).toEqual({ type: 'delegation', ref: eurGrant, short: 'direct grant' });

    const rec = await record(res.body.policy_decision_id);
    expect(rec.reservation).toEqual({ amount: { minor: 3000, currency: 'EUR' }, grant_ids: [eurGrant] });
    expect(rec.diagnostics.grant_id).toBe(eurGrant);
    expect(rec.diagnostics.candidates).toEqual([
      { grant_id: usdGrant, decision: 'deny', reason: 'currency_mismatch' },
      { grant_id: eurGrant, decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' },
    ]);
    // the snapshot carries both chains, newest first, so replay decides on exactly what the server read
    expect(rec.snapshot.grants.map((g) => g.grant_id)).toEqual([usdGrant]);
    expect(rec.snapshot.alternatives?.map((chain) => chain.map((g) => g.grant_id))).toEqual([[eurGrant]]);
    const replayed = decide(rec.request, rec.snapshot, rec.now);
    expect({ decision: replayed.decision, reason: replayed.reason, reservation: replayed.reservation }).toEqual({
      decision: rec.decision,
      reason: rec.reason,
      reservation: rec.reservation,
    });

    const events = (await world.call('GET', '/v1/events?limit=500')).body.items as Array<{
      subject_ref: string;
      data: { grant_id: string };
    }>;
    expect(events.find((e) => e.subject_ref === res.body.policy_decision_id)?.data.grant_id).toBe(eurGrant);
  });

  it('allows a USD purchase under the newer USD grant', async () => {
    const res = await world.authorize(usd(200));
    expect(res.body).toMatchObject({ decision: 'allow_with_constraints' });
    const rec = await record(res.body.policy_decision_id);
    expect(rec.reservation?.grant_ids).toEqual([usdGrant]);
  });

  it("counts each grant's own day: when the EUR grant's day is spent, the answer is the newest grant's deny", async () => {
    // 30 already reserved today on the EUR grant (100 a day): 60 more fit, then nothing
    expect((await world.authorize(eur(35))).body.decision).toBe('allow_with_constraints');
    expect((await world.authorize(eur(35))).body.decision).toBe('allow_with_constraints');
    const over = await world.authorize(eur(35));
    expect(over.body).toMatchObject({ decision: 'deny', reason: 'currency_mismatch' });
    const rec = await record(over.body.policy_decision_id);
    expect(rec.diagnostics.candidates?.map((c) => c.reason)).toEqual(['currency_mismatch', 'daily_limit_exceeded']);
    expect(rec.reservation).toBeNull();
    const spend = await rt.ctx.store.db.selectFrom('spend_counters').select(['grant_id', 'reserved_minor']).execute();
    expect(spend.find((s) => s.grant_id === eurGrant)?.reserved_minor).toBe(10_000);
    expect(spend.find((s) => s.grant_id === usdGrant)?.reserved_minor).toBe(20_000);
  });

  it('a revoked grant is no candidate: revoking the USD grant leaves EUR purchases to the EUR grant alone', async () => {
    expect((await world.call('POST', `/v1/grants/${usdGrant}/revoke`)).status).toBe(200);
    const res = await world.authorize(eur(35));
    // the EUR grant's day is spent; the revoked USD grant is no longer loaded
    expect(res.body).toMatchObject({ decision: 'deny', reason: 'daily_limit_exceeded' });
    const rec = await record(res.body.policy_decision_id);
    expect(rec.snapshot.alternatives).toBeUndefined();
    expect(rec.snapshot.grants.map((g) => g.grant_id)).toEqual([eurGrant]);
  });
});
