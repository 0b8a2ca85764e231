/**
 * A forged state is not honoured, on each database. Attacker: the database but not the service's key, editing a
 * state row with the write-once guards and triggers out of the way (test/support/bypassing-guards.ts). Every state
 * that changes a decision must come from a chained record: an approval's answer, a decision's outcome, a risk state,
 * a grant's revocation, a spend counter, an entity, a card token, a merchant. The forged row is refused where it would be used (503 `audit_unavailable`, naming the table,
 * row and column; nothing is committed) and `GET /v1/audit/verify` names it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { jwkThumbprint } from '@aar/core';
import { createRequestSigner } from '@aar/sdk';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spendMemoryOf } from '../../src/services/authorize/chained-spend.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld, type CallResult } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();
const AGENT = 'ns:entity:agent:shopper-1';
const TOKEN = 'ns:card_token:tok-1';

describe.each(dialects)('a forged state on %s', (dialect) => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let merchants = 0;
  let base: string;
  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
      scope: {
        max_amount_per_purchase: { amount: 500, currency: 'EUR' },
        max_daily_amount: { amount: 10_000, currency: 'EUR' },
        requires_approval_above: { amount: 40, currency: 'EUR' },
        allowed_jurisdictions: ['DE'],
        blocked_merchant_categories: ['7995'],
        valid_until: inOneYear(),
      },
    });
  });
  afterEach(async () => rt?.close());

  const forge = (statement: ReturnType<typeof sql>) =>
    bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
      await statement.execute(db);
    });
  const verify = async () => (await world.call('GET', '/v1/audit/verify')).body;
  /** a legitimate change elsewhere: the facts version moves, so every instance reads its facts afresh */
  const moveFactsVersion = () =>
    world.must('POST', '/v1/merchants', {
      id: `other-${++merchants}`,
      display_name: 'Other',
      category: '5411',
      jurisdiction: 'DE',
    });
  const decisionCount = async () =>
    Number(
      (
        await rt.ctx.store.db
          .selectFrom('decisions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const expectRefused = async (res: CallResult, table: string, column: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ code: 'audit_unavailable', integrity: { table, column } });
  };

  it('refuses an approval set to approved in the row, and verify names approvals.status', async () => {
    const held = await world.authorize(world.purchase(45));
    expect(held.body).toMatchObject({ decision: 'require_approval' });
    const approvalId: string = held.body.approval.approval_id;
    await forge(sql`update approvals set status = 'approved', decided_at = ${new Date().toISOString()}
                    where approval_id = ${approvalId}`);
    const before = await decisionCount();
    const retry = await world.authorize(world.purchase(45, { policy_decision_id: held.body.policy_decision_id }));
    await expectRefused(retry, 'approvals', 'status');
    expect(retry.body.integrity.id).toBe(approvalId);
    expect(await decisionCount()).toBe(before); // fail closed: nothing committed
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      record: { table: 'approvals', id: approvalId },
      detail: 'status',
    });
  });

  it('refuses a spent approval set back to approved (no second purchase on one answer)', async () => {
    const held = await world.authorize(world.purchase(45));
    const approvalId: string = held.body.approval.approval_id;
    const decided = await world.call(
      'POST',
      `/v1/approvals/${approvalId}/decision`,
      { approve: true },
      world.principalToken,
    );
    expect(decided.status).toBe(200);
    const retry = world.purchase(45, { policy_decision_id: held.body.policy_decision_id });
    expect((await world.authorize(retry)).body).toMatchObject({ reason: 'approved_by_principal' });
    await forge(sql`update approvals set status = 'approved', consumed_by = null where approval_id = ${approvalId}`);
    await expectRefused(await world.authorize(retry), 'approvals', 'status');
    expect(await verify()).toMatchObject({
      valid: false,
      record: { table: 'approvals', id: approvalId },
      detail: 'status',
    });
  });

  it('refuses a widened approval (bound edited after the principal approved)', async () => {
    const held = await world.authorize(world.purchase(45));
    const approvalId: string = held.body.approval.approval_id;
    await world.call('POST', `/v1/approvals/${approvalId}/decision`, { approve: true }, world.principalToken);
    const bound = (
      await rt.ctx.store.db
        .selectFrom('approvals')
        .select('bound')
        .where('approval_id', '=', approvalId)
        .executeTakeFirstOrThrow()
    ).bound;
    const widened = bound.replace('"minor":4500', '"minor":45000');
    expect(widened).not.toBe(bound);
    await forge(sql`update approvals set bound = ${widened} where approval_id = ${approvalId}`);
    const retry = await world.authorize(world.purchase(450, { policy_decision_id: held.body.policy_decision_id }));
    await expectRefused(retry, 'approvals', 'bound');
    expect(await verify()).toMatchObject({
      valid: false,
      record: { table: 'approvals', id: approvalId },
      detail: 'bound',
    });
  });

  it('refuses a decision outcome edited in the row, and verify names decisions.outcome', async () => {
    const buy = await world.authorize(world.purchase(30));
    expect(buy.body).toMatchObject({ decision: 'allow_with_constraints' });
    const id: string = buy.body.policy_decision_id;
    // executed without a report: a refund would then release money the chain says is still only reserved
    await forge(sql`update decisions set outcome = 'executed' where policy_decision_id = ${id}`);
    const refund = await world.call(
      'POST',
      '/v1/runtime/outcomes',
      { policy_decision_id: id, outcome: 'refunded' },
      world.runtimeToken,
    );
    await expectRefused(refund, 'decisions', 'outcome');
    const spent = await rt.ctx.store.db.selectFrom('spend_counters').select('reserved_minor').executeTakeFirstOrThrow();
    expect(Number(spent.reserved_minor)).toBe(3000); // nothing released
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      record: { table: 'decisions', id },
      detail: 'outcome',
    });
  });

  it('refuses a risk state edited or deleted in the row, and verify names risk_states', async () => {
    await world.must('POST', '/v1/risk-signals', { entity_id: AGENT, risk_state: 'blocked' });
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ reason: 'risk_state_blocked' });
    await forge(sql`update risk_states set risk_state = 'normal' where entity_id = ${AGENT}`);
    await moveFactsVersion();
    await expectRefused(await world.authorize(world.purchase(10)), 'risk_states', 'risk_state');
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      record: { table: 'risk_states', id: AGENT },
      detail: 'risk_state',
    });
    await forge(sql`delete from risk_states where entity_id = ${AGENT}`);
    await moveFactsVersion();
    await expectRefused(await world.authorize(world.purchase(10)), 'risk_states', 'risk_state');
    expect(await verify()).toMatchObject({ valid: false, record: { table: 'risk_states', id: AGENT } });
  });

  it('refuses a revoked grant made active again, and verify names the revocation', async () => {
    const revoked = await world.call('POST', `/v1/grants/${world.grant.grant_id}/revoke`);
    expect(revoked.status).toBe(200);
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ reason: 'authority_revoked' });
    await forge(sql`delete from grant_revocations where grant_id = ${world.grant.grant_id}`);
    await moveFactsVersion();
    await expectRefused(await world.authorize(world.purchase(10)), 'grants', 'state');
    // the row was deleted, not edited: verify names the revocation operation it is missing from
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_missing',
      record: { table: 'grant_revocations' },
    });
  });

  it("names a day's spend counter lowered or deleted (a grant spending past its daily limit)", async () => {
    const buy = await world.authorize(world.purchase(30));
    expect(buy.body).toMatchObject({ decision: 'allow_with_constraints' });
    const id = `${world.grant.grant_id} ${new Date().toISOString().slice(0, 10)}`;
    expect(await verify()).toMatchObject({ valid: true });
    await forge(sql`update spend_counters set reserved_minor = 0 where grant_id = ${world.grant.grant_id}`);
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      record: { table: 'spend_counters', id },
      detail: 'reserved_minor',
    });
    await forge(sql`delete from spend_counters where grant_id = ${world.grant.grant_id}`);
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_missing',
      record: { table: 'spend_counters', id },
    });
  });

  it("refuses a day's spend counter lowered or deleted in the row (no purchase past the daily limit)", async () => {
    const buy = await world.authorize(world.purchase(30));
    expect(buy.body).toMatchObject({ decision: 'allow_with_constraints' });
    const id = `${world.grant.grant_id} ${new Date().toISOString().slice(0, 10)}`;
    await forge(sql`update spend_counters set reserved_minor = 0 where grant_id = ${world.grant.grant_id}`);
    const before = await decisionCount();
    const lowered = await world.authorize(world.purchase(30));
    await expectRefused(lowered, 'spend_counters', 'reserved_minor');
    expect(lowered.body.integrity.id).toBe(id);
    expect(await decisionCount()).toBe(before); // fail closed: nothing committed
    await forge(sql`delete from spend_counters where grant_id = ${world.grant.grant_id}`);
    await expectRefused(await world.authorize(world.purchase(30)), 'spend_counters', 'reserved_minor');
    expect(await decisionCount()).toBe(before);
    expect(await verify()).toMatchObject({ valid: false, record: { table: 'spend_counters', id } });
  });

  it("honours a day's spend counter moved by a released outcome and by another instance's purchase", async () => {
    const first = await world.authorize(world.purchase(30));
    const failed = await world.call(
      'POST',
      '/v1/runtime/outcomes',
      { policy_decision_id: first.body.policy_decision_id, outcome: 'failed' },
      world.runtimeToken,
    );
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect((await world.authorize(world.purchase(20))).body).toMatchObject({ decision: 'allow_with_constraints' });
    // as if another instance had moved the counter on: this one knows an older value, recomputes, and honours it
    spendMemoryOf(rt.ctx).set(world.grant.grant_id, new Date().toISOString().slice(0, 10), 1);
    expect((await world.authorize(world.purchase(25))).body).toMatchObject({ decision: 'allow_with_constraints' });
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('refuses a suspended agent set back to active in the row, and verify names entities.state', async () => {
    await world.must('POST', `/v1/entities/${AGENT}/suspend`);
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ reason: 'actor_inactive' });
    await forge(sql`update entities set state = 'active' where entity_id = ${AGENT}`);
    await moveFactsVersion();
    const before = await decisionCount();
    const res = await world.authorize(world.purchase(10));
    await expectRefused(res, 'entities', 'state');
    expect(res.body.integrity.id).toBe(AGENT);
    expect(await decisionCount()).toBe(before);
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      record: { table: 'entities', id: AGENT },
      detail: 'state',
    });
  });

  it('refuses a suspended agent set back to active with its suspension event deleted (the entry still says suspended)', async () => {
    await world.must('POST', `/v1/entities/${AGENT}/suspend`);
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ reason: 'actor_inactive' });
    await forge(sql`delete from events where subject_ref = ${AGENT} and event_type = 'ns.entity.suspended'`);
    await forge(sql`update entities set state = 'active' where entity_id = ${AGENT}`);
    await moveFactsVersion();
    await expectRefused(await world.authorize(world.purchase(10)), 'entities', 'state');
    expect(await verify()).toMatchObject({ valid: false });
  });

  it("refuses an agent's public key swapped in the row (no one signs as the agent with another key)", async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pub = publicKey.export({ format: 'jwk' }) as { x: string };
    const forgedJwk = JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: pub.x });
    const forgedThumbprint = await jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: pub.x });
    await forge(sql`update entities set public_key_jwk = ${forgedJwk}, key_thumbprint = ${forgedThumbprint}
                    where entity_id = ${AGENT}`);
    await moveFactsVersion();
    const intruder = createRequestSigner({
      keyId: AGENT,
      privateJwk: privateKey.export({ format: 'jwk' }) as { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string },
    });
    const url = `${base}/v1/runtime/authorize`;
    const body = JSON.stringify(world.purchase(10));
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${world.runtimeToken}`,
        'content-type': 'application/json',
        ...(await intruder.sign({ method: 'POST', url, body })),
      },
      body,
    });
    await expectRefused(
      { status: res.status, body: await res.json(), headers: res.headers },
      'entities',
      'public_key_jwk',
    );
    expect(await verify()).toMatchObject({ valid: false, record: { table: 'entities', id: AGENT } });
  });

  it('honours genuine entity states: suspended, then activated again', async () => {
    await world.must('POST', `/v1/entities/${AGENT}/suspend`);
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ reason: 'actor_inactive' });
    await world.must('POST', `/v1/entities/${AGENT}/activate`);
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ decision: 'allow_with_constraints' });
  });

  it('refuses a suspended card token set back to active in the row, and verify names card_tokens.state', async () => {
    await world.must('POST', `/v1/card-tokens/${TOKEN}/suspend`);
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ reason: 'instrument_inactive' });
    await forge(sql`update card_tokens set state = 'active' where card_token_id = ${TOKEN}`);
    await moveFactsVersion();
    const before = await decisionCount();
    const res = await world.authorize(world.purchase(10));
    await expectRefused(res, 'card_tokens', 'state');
    expect(res.body.integrity.id).toBe(TOKEN);
    expect(await decisionCount()).toBe(before); // fail closed: nothing committed
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      record: { table: 'card_tokens', id: TOKEN },
      detail: 'state',
    });
  });

  it('refuses a card token set back to active with its suspension event deleted (the entry still says suspended)', async () => {
    await world.must('POST', `/v1/card-tokens/${TOKEN}/suspend`);
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ reason: 'instrument_inactive' });
    await forge(sql`delete from events where subject_ref = ${TOKEN} and event_type = 'ns.card_token.suspended'`);
    await forge(sql`update card_tokens set state = 'active' where card_token_id = ${TOKEN}`);
    await moveFactsVersion();
    const res = await world.authorize(world.purchase(10));
    await expectRefused(res, 'card_tokens', 'state');
    expect(await verify()).toMatchObject({ valid: false });
  });

  it("refuses a card token moved to another principal in the row (another person's card)", async () => {
    await world.must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
    await world.must('POST', '/v1/card-tokens', {
      id: 'tok-bob',
      principal_entity_id: 'ns:entity:person:bob',
      network_token: 'ntk_bob_1',
    });
    const bobs = 'ns:card_token:tok-bob';
    // the grant names tok-1; bob's token moved to alice would be spent under alice's authority
    await forge(
      sql`update card_tokens set principal_entity_id = 'ns:entity:person:alice' where card_token_id = ${bobs}`,
    );
    await moveFactsVersion();
    const res = await world.authorize(world.purchase(10, { scope: { instrument: bobs } }));
    await expectRefused(res, 'card_tokens', 'principal_entity_id');
    expect(res.body.integrity.id).toBe(bobs);
    expect(await verify()).toMatchObject({
      valid: false,
      record: { table: 'card_tokens', id: bobs },
      detail: 'principal_entity_id',
    });
  });

  it("refuses an erased principal's card token set back to active (erasure's suspension stands)", async () => {
    await world.must('DELETE', '/v1/entities/ns:entity:person:alice');
    const erased = await world.authorize(world.purchase(10));
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(erased.body).toMatchObject({ decision: 'deny' });
    await forge(sql`update card_tokens set state = 'active' where card_token_id = ${TOKEN}`);
    await moveFactsVersion();
    await expectRefused(await world.authorize(world.purchase(10)), 'card_tokens', 'state');
  });

  it('refuses a blocked merchant category edited in the row (7995 to 5411), and verify names merchants.category', async () => {
    const casino = (amount: number) =>
      world.purchase(amount, { resource: { merchant_id: 'casino-1', amount, currency: 'EUR' } });
    expect((await world.authorize(casino(10))).body).toMatchObject({ reason: 'merchant_category_blocked' });
    await forge(sql`update merchants set category = '5411' where merchant_id = 'casino-1'`);
    await moveFactsVersion();
    const before = await decisionCount();
    const res = await world.authorize(casino(10));
    await expectRefused(res, 'merchants', 'category');
    expect(res.body.integrity.id).toBe('casino-1');
    expect(await decisionCount()).toBe(before); // fail closed: nothing committed
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      record: { table: 'merchants', id: 'casino-1' },
      detail: 'category',
    });
  });

  it("refuses a merchant's jurisdiction or state edited in the row", async () => {
    const us = world.purchase(10, { resource: { merchant_id: 'shop-us', amount: 10, currency: 'EUR' } });
    expect((await world.authorize(us)).body).toMatchObject({ reason: 'jurisdiction_not_allowed' });
    await forge(sql`update merchants set jurisdiction = 'DE' where merchant_id = 'shop-us'`);
    await moveFactsVersion();
    await expectRefused(await world.authorize(us), 'merchants', 'jurisdiction');
    expect(await verify()).toMatchObject({ valid: false, record: { table: 'merchants', id: 'shop-us' } });
    await forge(sql`update merchants set state = 'suspended' where merchant_id = 'grocer-1'`);
    await moveFactsVersion();
    await expectRefused(await world.authorize(world.purchase(10)), 'merchants', 'state');
  });

  it('honours genuine card token states and merchants: suspended, activated, a blocked category denied', async () => {
    await world.must('POST', `/v1/card-tokens/${TOKEN}/suspend`);
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ reason: 'instrument_inactive' });
    await world.must('POST', `/v1/card-tokens/${TOKEN}/activate`);
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ decision: 'allow_with_constraints' });
    const casino = world.purchase(10, { resource: { merchant_id: 'casino-1', amount: 10, currency: 'EUR' } });
    expect((await world.authorize(casino)).body).toMatchObject({ reason: 'merchant_category_blocked' });
    await moveFactsVersion();
    expect((await world.authorize(world.purchase(10))).body).toMatchObject({ decision: 'allow_with_constraints' });
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('names an entry whose lookup columns were moved to another subject (a revocation hidden from authorize)', async () => {
    await world.call('POST', `/v1/grants/${world.grant.grant_id}/revoke`);
    const entry = await rt.ctx.store.db
      .selectFrom('audit_entries')
      .select('idx')
      .where('subject_ref', '=', world.grant.grant_id)
      .where('kind', '=', 'ns.authority.revoked')
      .executeTakeFirstOrThrow();
    await forge(sql`update audit_entries set subject_ref = 'ns:authority:grant:elsewhere' where idx = ${entry.idx}`);
    expect(await verify()).toMatchObject({
      valid: false,
      first_invalid_index: Number(entry.idx),
      failure: 'malformed_entry',
      detail: 'subject_ref',
    });
  });

  it('honours every genuine state (control)', async () => {
    const held = await world.authorize(world.purchase(45));
    await world.call(
      'POST',
      `/v1/approvals/${held.body.approval.approval_id}/decision`,
      { approve: true },
      world.principalToken,
    );
    await world.must('POST', '/v1/risk-signals', { entity_id: AGENT, risk_state: 'elevated' });
    await world.must('POST', '/v1/risk-signals', { entity_id: AGENT, risk_state: 'normal' });
    await moveFactsVersion();
    const buy = await world.authorize(world.purchase(45, { policy_decision_id: held.body.policy_decision_id }));
    expect(buy.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'approved_by_principal' });
    for (const outcome of ['executed', 'refunded']) {
      const res = await world.call(
        'POST',
        '/v1/runtime/outcomes',
        { policy_decision_id: buy.body.policy_decision_id, outcome },
        world.runtimeToken,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect(await verify()).toMatchObject({ valid: true });
  });
});
