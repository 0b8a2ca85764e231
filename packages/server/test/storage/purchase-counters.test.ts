/**
 * `facts.counters` as rules read them (services/authorize/purchase-counters.ts), on each database: only the allowed
 * executes that still count (not denied, not another action, not failed or refunded), the principal's across all its
 * agents, the agent's across all its principals, spend in the request's currency only, each window from `now`, and a
 * backtest's `before` leaving out what came later. What a user notices: a velocity or spend rule counts exactly the
 * purchases it says it counts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPurchaseCounters } from '../../src/services/authorize/purchase-counters.ts';
import { testDialects } from '../support/dialects.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();
const NOW = new Date('2026-11-28T12:00:00.000Z');
const MIN = 60_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

interface Row {
  principal?: string;
  actor?: string;
  at: string;
  minor: number;
  currency?: string;
  merchant?: string;
  decision?: 'allow_with_constraints' | 'deny';
  action?: string;
  outcome?: string;
}

describe.each(dialects)('purchase counters on %s', (dialect) => {
  let rt: TestRuntime;

  async function insert(row: Row): Promise<void> {
    const id = randomUUID();
    await rt.ctx.writer.run((trx) =>
      trx
        .insertInto('decisions')
        .values({
          policy_decision_id: `ns:decision:${id}`,
          decision: row.decision ?? 'allow_with_constraints',
          reason: 'scope_within_attenuated_authority',
          actor_entity_id: row.actor ?? 'ns:agent:a',
          principal_entity_id: row.principal ?? 'ns:person:p',
          subject: 'ns:capability:payment_action:card_purchase',
          action: row.action ?? 'execute',
          leaf_grant_id: null,
          request: '',
          snapshot: '',
          result: '',
          decision_map_id: `ns:decision_map:${id}`,
          decision_map: '',
          audit_ref: `ns:audit:${id}`,
          evidence_refs: '[]',
          approval_id: null,
          reservation: null,
          spend_day: null,
          outcome: row.outcome ?? 'reserved',
          engine_version: 'aar-decide/1.3.0',
          now: row.at,
          created_at: row.at,
          updated_at: row.at,
          record: null,
          merchant_id: row.merchant ?? 'm-1',
          amount_minor: row.minor,
          currency: row.currency ?? 'EUR',
        } as never)
        .execute(),
    );
  }

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const rows: Row[] = [
      { at: ago(30 * MIN), minor: 1000 },
      { at: ago(300 * MIN), minor: 2000, outcome: 'executed' },
      { at: ago(10 * 24 * 60 * MIN), minor: 500, actor: 'ns:agent:b', merchant: 'm-2' },
      { at: ago(10 * MIN), minor: 700, currency: 'USD' },
      // none of these count
      { at: ago(5 * MIN), minor: 100, decision: 'deny' },
      { at: ago(5 * MIN), minor: 100, outcome: 'failed' },
      { at: ago(5 * MIN), minor: 100, outcome: 'refunded' },
      { at: ago(5 * MIN), minor: 100, action: 'prepare' },
      { at: ago(40 * 24 * 60 * MIN), minor: 9999, merchant: 'm-3' },
      // another principal of the same agent: the agent's counters only
      { at: ago(20 * MIN), minor: 300, principal: 'ns:person:q' },
    ];
    for (const row of rows) await insert(row);
  });
  afterAll(async () => rt?.close());

  const parties = (merchant: string | undefined, currency = 'EUR') => ({
    principal_entity_id: 'ns:person:p',
    actor_entity_id: 'ns:agent:a',
    merchant_id: merchant,
    currency,
  });

  it('counts the allowed executes that still count, per window, per party and in the request currency', async () => {
    expect(await readPurchaseCounters(rt.ctx.store.db, parties('m-1'), NOW)).toEqual({
      purchases_1h: 2,
      purchases_24h: 3,
      spend_24h_minor: 3000,
      spend_30d_minor: 3500,
      merchant_first_purchase: false,
      agent_purchases_1h: 3,
      agent_purchases_24h: 4,
    });
    const usd = await readPurchaseCounters(rt.ctx.store.db, parties('m-1', 'USD'), NOW);
    expect([usd.spend_24h_minor, usd.spend_30d_minor]).toEqual([700, 700]);
  });

  it('knows a merchant the principal bought from (in any window) from one it never did', async () => {
    const db = rt.ctx.store.db;
    expect((await readPurchaseCounters(db, parties('m-2'), NOW)).merchant_first_purchase).toBe(false);
    expect((await readPurchaseCounters(db, parties('m-3'), NOW)).merchant_first_purchase).toBe(false);
    expect((await readPurchaseCounters(db, parties('m-new'), NOW)).merchant_first_purchase).toBe(true);
    expect((await readPurchaseCounters(db, parties(undefined), NOW)).merchant_first_purchase).toBe(false);
  });

  it("leaves out what came at or after a backtested decision's instant", async () => {
    const counters = await readPurchaseCounters(rt.ctx.store.db, parties('m-1'), NOW, ago(15 * MIN));
    expect(counters).toMatchObject({
      purchases_1h: 1,
      purchases_24h: 2,
      agent_purchases_1h: 2,
      agent_purchases_24h: 3,
    });
  });
});
