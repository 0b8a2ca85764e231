/**
 * An approval says what the principal approves (issue 26, the console's approval card): the action, the amount,
 * the merchant, the card token and the basket's items, on GET /v1/approvals/{id}, on the list and on the decision's
 * answer. The basket comes from the record of the decision that asked for the approval, and only when it hashes to
 * the approval's `basket_hash`: a basket edited in the database is not shown (fail closed), the approval still reads.
 */
import canonicalize from 'canonicalize';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeDecisionRecord, encodeDecisionRecord } from '../../src/services/decisions/record-codec.ts';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const BASKET = {
  items: [
    { sku: 'apples-1kg', name: 'Apples, 1 kg', qty: 2, unit_price: { amount: 3.5, currency: 'EUR' } },
    { sku: 'coffee-500g', name: 'Coffee beans, 500 g', qty: 1, unit_price: { amount: 38, currency: 'EUR' } },
  ],
};

describe('an approval shows what is approved', () => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;

  beforeAll(async () => {
    rt = await startTestRuntime();
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
      scope: {
        max_amount_per_purchase: { amount: 500, currency: 'EUR' },
        max_daily_amount: { amount: 10_000, currency: 'EUR' },
        requires_approval_above: { amount: 40, currency: 'EUR' },
        allowed_jurisdictions: ['DE', 'FR'],
        valid_until: inOneYear(),
      },
    });
  });
  afterAll(async () => rt?.close());

  const askApproval = async (extra: Record<string, unknown> = {}) => {
    const res = await world.authorize(world.purchase(45, extra));
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ decision: 'require_approval' });
    return res.body as { policy_decision_id: string; approval: { approval_id: string } };
  };

  it('names the action, amount, merchant, card token and the basket items, on read, list and decision', async () => {
    const asked = await askApproval({ basket: BASKET });
    const id = asked.approval.approval_id;
    const read = await world.call('GET', `/v1/approvals/${id}`, undefined, world.principalToken);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.request).toEqual({
      actor_entity_id: 'ns:entity:agent:shopper-1',
      principal_entity_id: 'ns:entity:person:alice',
      subject: 'ns:capability:payment_action:card_purchase',
      action: 'execute',
      merchant_id: 'grocer-1',
      amount: { amount: 45, currency: 'EUR' },
      instrument_id: 'ns:card_token:tok-1',
      basket_hash: expect.stringMatching(/^sha-256:/),
      basket: BASKET,
    });
    const listed = await world.call('GET', '/v1/approvals?state=pending', undefined, world.principalToken);
    const item = listed.body.items.find((a: { approval_id: string }) => a.approval_id === id);
    expect(item.request).toEqual(read.body.request);
    const decided = await world.call('POST', `/v1/approvals/${id}/decision`, { approve: false }, world.principalToken);
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.request.basket).toEqual(BASKET);
  });

  it('has no basket when the purchase carried none', async () => {
    const asked = await askApproval();
    const read = await world.call(
      'GET',
      `/v1/approvals/${asked.approval.approval_id}`,
      undefined,
      world.principalToken,
    );
    expect(read.body.request).toMatchObject({ action: 'execute', merchant_id: 'grocer-1' });
    expect(read.body.request).not.toHaveProperty('basket');
    expect(read.body.request).not.toHaveProperty('basket_hash');
  });

  it('does not show a basket edited in the database: it no longer hashes to the bound basket_hash', async () => {
    const asked = await askApproval({ basket: BASKET });
    const db = rt.ctx.store.db;
    const row = await db
      .selectFrom('decisions')
      .select(['record', 'request'])
      .where('policy_decision_id', '=', asked.policy_decision_id)
      .executeTakeFirstOrThrow();
    // the attacker has the database, not the key: one more item in the stored request
    const forged = { items: [...BASKET.items, { sku: 'tv-65', name: 'Television', qty: 1 }] };
    const edit = (request: object) => ({ ...request, basket: forged });
    const update =
      row.record !== null
        ? (() => {
            const record = JSON.parse(decodeDecisionRecord(row.record)) as { request: object };
            return { record: encodeDecisionRecord(canonicalize({ ...record, request: edit(record.request) })!) };
          })()
        : { request: JSON.stringify(edit(JSON.parse(row.request) as object)) };
    // what someone with database access does: the write-once guards out of the way, then the edit (SQLite)
    const guards = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'trigger' and tbl_name = 'decisions'`.execute(db);
    for (const guard of guards.rows) await sql`drop trigger ${sql.raw(guard.name)}`.execute(db);
    await db.updateTable('decisions').set(update).where('policy_decision_id', '=', asked.policy_decision_id).execute();
    const read = await world.call(
      'GET',
      `/v1/approvals/${asked.approval.approval_id}`,
      undefined,
      world.principalToken,
    );
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.request).toMatchObject({ action: 'execute', merchant_id: 'grocer-1', basket_hash: /^sha-256:/ });
    expect(read.body.request).not.toHaveProperty('basket');
  });
});
