/**
 * A mandate and an allowance used end to end over HTTP on both databases: authorize naming the mandate is decided by
 * its grant (allowed within it, `merchant_not_allowed` outside its payees), a revoked mandate denies
 * (`mandate_revoked`), and an allowance allows one purchase only (its state then reads `used`, naming the decision;
 * the next is `allowance_used`). Audit verify holds throughout (used_by names the allowed decision).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { ap2Keys, openPaymentChain, paymentConstraints } from './support/ap2-chain.ts';

const dialects = await testDialects();
const ISSUER = 'https://wallet.issuer.test';

describe.each(dialects)('mandates used by authorize on %s', (dialect) => {
  let rt: TestRuntime;
  let w: DelegationWorld;
  let base: string;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildDelegationWorld(base, ADMIN_TOKEN);
  }, 60_000);
  afterAll(async () => rt?.close());

  it('decides a purchase naming an AP2 mandate by its grant, and denies once it is revoked', async () => {
    const keys = await ap2Keys();
    await w.must('POST', '/v1/mandate-issuers', {
      issuer: ISSUER,
      format: 'ap2',
      jwks: { keys: [keys.issuer.publicJwk] },
    });
    const presentation = await openPaymentChain(keys, {
      issuer: ISSUER,
      audience: rt.ctx.config.mandateAudiences[0]!,
      nowSeconds: Math.floor(Date.now() / 1000),
      constraints: paymentConstraints(5000, 'EUR', ['merchant_1']),
    });
    const mandate = await w.must('POST', '/v1/mandates', {
      format: 'ap2',
      presentation,
      parent_grant_id: w.root.grant_id,
      actor_entity_id: 'ns:entity:agent:shopper-1',
      payees: { merchant_1: 'grocer-1' },
    });
    const named = { mandate: { mandate_id: mandate.mandate_id } };
    const allowed = await w.authorize('shopper-1', w.purchase('shopper-1', 30, 'grocer-1', named));
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.decision).toBe('allow_with_constraints');
    const elsewhere = await w.authorize('shopper-1', w.purchase('shopper-1', 30, 'diner-1', named));
    expect(elsewhere.body).toMatchObject({ decision: 'deny', reason: 'merchant_not_allowed' });
    const over = await w.authorize('shopper-1', w.purchase('shopper-1', 60, 'grocer-1', named));
    expect(over.body.decision).toBe('deny');

    await w.must('POST', `/v1/mandates/${mandate.mandate_id}/revoke`);
    const revoked = await w.authorize('shopper-1', w.purchase('shopper-1', 30, 'grocer-1', named));
    expect(revoked.body).toMatchObject({ decision: 'deny', reason: 'mandate_revoked' });
  });

  it('lets an ACP allowance be used once', async () => {
    const res = await fetch(`${base}/v1/allowances`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        'content-type': 'application/json',
        'idempotency-key': 'e2e-1',
      },
      body: JSON.stringify({
        format: 'acp',
        allowance: {
          reason: 'one_time',
          max_amount: 2000,
          currency: 'eur',
          checkout_session_id: 'csn_e2e',
          merchant_id: 'grocer-1',
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
        vaulted_token_id: 'vt_e2e',
        parent_grant_id: w.root.grant_id,
        actor_entity_id: 'ns:entity:agent:sibling',
      }),
    });
    expect(res.status).toBe(201);
    const allowance = (await res.json()) as { allowance_id: string };
    const named = { mandate: { mandate_id: allowance.allowance_id } };
    const first = await w.authorize('sibling', w.purchase('sibling', 15, 'grocer-1', named));
    expect(first.body.decision, JSON.stringify(first.body)).toBe('allow_with_constraints');
    const got = await w.call('GET', `/v1/allowances/${allowance.allowance_id}`);
    expect(got.body).toMatchObject({ state: 'used', used_by: first.body.policy_decision_id });
    const second = await w.authorize('sibling', w.purchase('sibling', 5, 'grocer-1', named));
    expect(second.body).toMatchObject({ decision: 'deny', reason: 'allowance_used' });
    expect((await w.call('GET', '/v1/audit/verify')).body.valid).toBe(true);
  });
});
