/**
 * The facts of migration 0018 are backed by the chain: an entity's `time_zone` (what a time-window rule's local time
 * is computed in) is restated by its `ns.entity.created` event, and a decision's `merchant_id`, `amount_minor` and
 * `currency` (what the rule counters sum) by its record. Each edited in the row (an attacker with SQL access, the
 * guards dropped) is found by `GET /v1/audit/verify`, naming the column; an edited zone is refused by authorize too.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

let rt: TestRuntime;
let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;

beforeAll(async () => {
  rt = await startTestRuntime({ config: { requireSignedRequests: false } });
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
    scope: {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
      max_daily_amount: { amount: 100, currency: 'EUR' },
      valid_until: inOneYear(),
    },
  });
}, 60_000);
afterAll(async () => rt?.close());

describe('decision facts inside the chain', () => {
  it('finds an edited time zone, merchant, amount or currency, and stores them as the request gave them', async () => {
    const zoned = await world.call('POST', '/v1/entities', {
      type: 'person',
      id: 'dora',
      display_name: 'Dora',
      time_zone: 'america/new_york',
    });
    expect(zoned.status).toBe(201);
    // stored in the spelling Intl resolves it to
    expect(zoned.body.time_zone).toBe('America/New_York');
    const answer = await world.authorize(world.purchase(12.34));
    expect(answer.body.decision).toBe('allow_with_constraints');
    const row = await rt.ctx.store.db
      .selectFrom('decisions')
      .select(['merchant_id', 'amount_minor', 'currency'])
      .where('policy_decision_id', '=', answer.body.policy_decision_id)
      .executeTakeFirstOrThrow();
    expect({ ...row, amount_minor: Number(row.amount_minor) }).toEqual({
      merchant_id: 'grocer-1',
      amount_minor: 1234,
      currency: 'EUR',
    });
    expect((await world.call('GET', '/v1/audit/verify')).body.valid).toBe(true);

    const edits: Array<[string, string, string, unknown]> = [
      ['entities', 'time_zone', 'ns:entity:person:dora', 'Pacific/Kiritimati'],
      ['decisions', 'merchant_id', answer.body.policy_decision_id, 'shop-us'],
      ['decisions', 'amount_minor', answer.body.policy_decision_id, 1],
      ['decisions', 'currency', answer.body.policy_decision_id, 'USD'],
    ];
    for (const [table, column, id, value] of edits) {
      const key = table === 'entities' ? 'entity_id' : 'policy_decision_id';
      const before = (
        await sql<Record<string, unknown>>`select ${sql.ref(column)} as v from ${sql.table(table)}
          where ${sql.ref(key)} = ${id}`.execute(rt.ctx.store.db)
      ).rows[0]!.v;
      await bypassingGuards(rt.ctx.store.db, 'sqlite', async (db) => {
        await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${value} where ${sql.ref(key)} = ${id}`.execute(
          db,
        );
      });
      const verified = (await world.call('GET', '/v1/audit/verify')).body;
      expect(verified.valid, `${table}.${column}`).toBe(false);
      expect(JSON.stringify(verified), `${table}.${column}`).toContain(column);
      await bypassingGuards(rt.ctx.store.db, 'sqlite', async (db) => {
        await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${before} where ${sql.ref(key)} = ${id}`.execute(
          db,
        );
      });
    }
    expect((await world.call('GET', '/v1/audit/verify')).body.valid).toBe(true);
  }, 120_000);
});
