/**
 * The purchase counters maintained in buckets (services/authorize/counter-buckets.ts, maintained-counters.ts) are the
 * recount's facts exactly (purchase-counters.ts `readPurchaseCounters`, the reference), on each database:
 * - differential: random purchases of several principals, agents and currencies spread over 40 days (a test clock:
 *   every `now` is given), some without an amount, some denied or of another action, outcomes failed, refunded and
 *   executed, written through the same maintenance calls authorize and the outcome report make; after each step the
 *   maintained read equals the recount at random instants, including instants before some purchases (a later `now`
 *   counts too), with a memory kept across steps and with a fresh one;
 * - trust: a lowered bucket or a deleted one is refused (`purchase_counter_buckets`, the bucket, the column) with a
 *   warm memory and with a cold one; over HTTP, authorize answers 503 `audit_unavailable` and commits nothing, and
 *   `GET /v1/audit/verify` names the bucket, while the purchases and outcomes made through the API leave buckets
 *   verify finds right.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AarError } from '@aar/core';
import type { CountedPurchase } from '../../src/services/authorize/counter-buckets.ts';
import { CounterMemory } from '../../src/services/authorize/counter-memory.ts';
import { maintainPurchaseCounters, readMaintainedCounters } from '../../src/services/authorize/maintained-counters.ts';
import { readPurchaseCounters, type CounterParties } from '../../src/services/authorize/purchase-counters.ts';
import { fillPurchaseCounterBuckets } from '../../src/store/migrations/0019-purchase-counter-buckets.ts';
import { testDialects } from '../support/dialects.ts';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { E2E_PACK } from '../rules-in-authorize/e2e-pack.ts';

const dialects = await testDialects();
const T0 = Date.parse('2026-10-01T00:00:00.000Z');
const DAY = 86_400_000;
const SEED = Number(process.env.AAR_TEST_SEED ?? 20261128);

/** mulberry32: a small seeded generator, so a failure can be replayed with AAR_TEST_SEED */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Stored extends CountedPurchase {
  id: string;
  outcome: string;
  live: boolean;
}

describe.each(dialects)('maintained purchase counters on %s', (dialect) => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
  });
  afterAll(async () => rt?.close());

  async function insert(p: CountedPurchase & { decision?: string; action?: string; merchant?: string }) {
    const id = `ns:decision:${randomUUID()}`;
    await rt.ctx.writer.run(async (trx) => {
      await trx
        .insertInto('decisions')
        .values({
          policy_decision_id: id,
          decision: p.decision ?? 'allow_with_constraints',
          reason: 'scope_within_attenuated_authority',
          actor_entity_id: p.actor_entity_id,
          principal_entity_id: p.principal_entity_id,
          subject: 'ns:capability:payment_action:card_purchase',
          action: p.action ?? 'execute',
          leaf_grant_id: null,
          request: '',
          snapshot: '',
          result: '',
          decision_map_id: `ns:decision_map:${randomUUID()}`,
          decision_map: '',
          audit_ref: `ns:audit:${randomUUID()}`,
          evidence_refs: '[]',
          approval_id: null,
          reservation: null,
          spend_day: null,
          outcome: p.amount_minor === null ? 'none' : 'reserved',
          engine_version: 'aar-decide/1.3.0',
          now: p.now,
          created_at: p.now,
          updated_at: p.now,
          record: null,
          merchant_id: p.merchant ?? 'm-1',
          amount_minor: p.amount_minor,
          currency: p.currency,
        } as never)
        .execute();
      // what commit-decision.ts does for a live purchase
      if (
        (p.decision ?? 'allow_with_constraints') === 'allow_with_constraints' &&
        (p.action ?? 'execute') === 'execute'
      ) {
        await maintainPurchaseCounters(trx, writerMemory, p, 1);
      }
    });
    return id;
  }

  /** what record-outcome.ts does: the outcome moves, a released purchase leaves its buckets */
  async function report(p: Stored, outcome: 'executed' | 'failed' | 'refunded') {
    await rt.ctx.writer.run(async (trx) => {
      await trx.updateTable('decisions').set({ outcome }).where('policy_decision_id', '=', p.id).execute();
      if (outcome !== 'executed') await maintainPurchaseCounters(trx, writerMemory, p, -1);
    });
    p.outcome = outcome;
    if (outcome !== 'executed') p.live = false;
  }

  // the instance that writes; readers below use it (warm) or a fresh one (cold)
  let writerMemory = new CounterMemory();
  const maintained = (memory: CounterMemory, parties: CounterParties, now: Date) =>
    rt.ctx.writer.run((trx) => readMaintainedCounters(trx, memory, parties, now));

  it('equal the recount at any instant, step after step', async () => {
    const rnd = random(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const principals = ['ns:entity:person:p1', 'ns:entity:person:p2', 'ns:entity:person:p3'];
    const agents = ['ns:entity:agent:a1', 'ns:entity:agent:a2', 'ns:entity:agent:a3'];
    const currencies = ['EUR', 'EUR', 'USD', 'JPY'];
    // instants cluster around a few moments (so buckets hold several purchases) and spread over 40 days
    const moments = Array.from({ length: 6 }, () => T0 + Math.floor(rnd() * 40 * DAY));
    const around = () =>
      rnd() < 0.6 ? pick(moments) + Math.floor((rnd() - 0.5) * 3 * 3600_000) : T0 + Math.floor(rnd() * 40 * DAY);
    // a fifth of the instants on a minute, hour or day boundary: the edges of the buckets and of the windows' parts
    const instant = () => {
      const t = around();
      if (rnd() >= 0.2) return t;
      const unit = pick([60_000, 3600_000, DAY]);
      return Math.floor(t / unit) * unit;
    };
    const stored: Stored[] = [];
    let reads = 0;
    let nonZero = 0;
    for (let step = 0; step < 90; step++) {
      const live = stored.filter((s) => s.live && s.amount_minor !== null);
      if (live.length > 0 && rnd() < 0.25) {
        const p = pick(live);
        await report(
          p,
          p.outcome === 'executed' ? pick(['refunded', 'refunded'] as const) : pick(['executed', 'failed'] as const),
        );
      } else {
        const p: Stored = {
          id: '',
          principal_entity_id: pick(principals),
          actor_entity_id: pick(agents),
          now: new Date(instant()).toISOString(),
          currency: rnd() < 0.1 ? null : pick(currencies),
          amount_minor: 0,
          outcome: 'reserved',
          live: true,
        };
        p.amount_minor = p.currency === null ? null : 1 + Math.floor(rnd() * 50_000);
        const other = rnd();
        const kind = other < 0.08 ? { decision: 'deny' } : other < 0.14 ? { action: 'prepare' } : {};
        p.id = await insert({ ...p, ...kind, merchant: pick(['m-1', 'm-2', 'm-3']) });
        p.live = Object.keys(kind).length === 0;
        stored.push(p);
      }
      // a new instance now and then: its first read recounts from the decisions
      if (step % 30 === 29) writerMemory = new CounterMemory();
      for (let r = 0; r < 3; r++) {
        const parties: CounterParties = {
          principal_entity_id: pick(principals),
          actor_entity_id: pick(agents),
          merchant_id: rnd() < 0.1 ? undefined : pick(['m-1', 'm-2', 'm-3', 'm-new']),
          currency: rnd() < 0.1 ? undefined : pick(currencies),
        };
        // some instants put a window's start exactly on a purchase (it counts: the window is [now - w, +infinity))
        const start = stored.length > 0 && rnd() < 0.25 ? Date.parse(pick(stored).now) : undefined;
        const now = new Date(
          start !== undefined
            ? start + pick([3600_000, DAY, 30 * DAY])
            : rnd() < 0.5
              ? instant()
              : T0 + Math.floor(rnd() * 42 * DAY) - DAY,
        );
        const expected = await readPurchaseCounters(rt.ctx.store.db, parties, now);
        const memory = r === 2 ? new CounterMemory() : writerMemory;
        const got = await maintained(memory, parties, now);
        expect(got, `seed ${SEED}, step ${step}, ${JSON.stringify(parties)} at ${now.toISOString()}`).toEqual(expected);
        reads += 1;
        if (expected.purchases_24h > 0 || expected.spend_30d_minor > 0) nonZero += 1;
      }
    }
    expect(reads).toBe(270);
    // the comparison is not vacuous: most reads see purchases
    expect(nonZero).toBeGreaterThan(reads / 3);

    // the migration's fill, from the decisions alone, gives the buckets the purchases and outcomes maintained
    const db = rt.ctx.store.db;
    const buckets = async () =>
      (
        await sql<Record<string, unknown>>`select subject_kind, subject_id, span, bucket_start, currency,
          purchases, spend_minor from purchase_counter_buckets where purchases <> 0 or spend_minor <> 0
          order by subject_kind, subject_id, span, bucket_start, currency`.execute(db)
      ).rows.map((r) => ({ ...r, purchases: Number(r.purchases), spend_minor: Number(r.spend_minor) }));
    const maintainedRows = await buckets();
    expect(maintainedRows.length).toBeGreaterThan(100);
    await sql`delete from purchase_counter_buckets`.execute(db);
    await fillPurchaseCounterBuckets(db as never);
    expect(await buckets()).toEqual(maintainedRows);
  }, 120_000);

  it('refuses a lowered or deleted bucket, with a warm memory and a cold one', async () => {
    const parties: CounterParties = {
      principal_entity_id: 'ns:entity:person:forged',
      actor_entity_id: 'ns:entity:agent:forged',
      merchant_id: 'm-1',
      currency: 'EUR',
    };
    // 12:17:23.450: the last hour's window starts at 11:17:23.450 and reads the minutes 11:18 to 12:00 one by one,
    // so a purchase at 11:22 is in a minute bucket the read uses
    const now = new Date(T0 + 10 * DAY + (12 * 60 + 17) * 60_000 + 23_450);
    const at = new Date(now.getTime() - 55 * 60_000).toISOString();
    const purchase = {
      principal_entity_id: parties.principal_entity_id,
      actor_entity_id: parties.actor_entity_id,
      currency: 'EUR',
      amount_minor: 700,
    };
    await insert({ ...purchase, now: at });
    await insert({ ...purchase, now: at });
    const warm = new CounterMemory();
    expect((await maintained(warm, parties, now)).purchases_1h).toBe(2);
    const minute = `${at.slice(0, 16)}:00.000Z`;
    const db = rt.ctx.store.db;
    const bucket = sql`subject_kind = 'principal' and subject_id = ${parties.principal_entity_id} and span = 'minute'
      and bucket_start = ${minute}`;
    const refusal = async (memory: CounterMemory) => {
      const error = await maintained(memory, parties, now).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AarError);
      return (error as AarError & { extra?: { integrity?: unknown } }).extra?.integrity;
    };
    const id = `principal ${parties.principal_entity_id} minute ${minute} EUR`;

    await sql`update purchase_counter_buckets set purchases = purchases - 1 where ${bucket}`.execute(db);
    expect(await refusal(warm)).toEqual({ table: 'purchase_counter_buckets', id, column: 'purchases' });
    expect(await refusal(new CounterMemory())).toEqual({ table: 'purchase_counter_buckets', id, column: 'purchases' });
    await sql`update purchase_counter_buckets set purchases = purchases + 1, spend_minor = spend_minor - 700
      where ${bucket}`.execute(db);
    expect(await refusal(warm)).toEqual({ table: 'purchase_counter_buckets', id, column: 'spend_minor' });
    await sql`update purchase_counter_buckets set spend_minor = spend_minor + 700 where ${bucket}`.execute(db);
    expect((await maintained(warm, parties, now)).purchases_1h).toBe(2);

    const saved = (
      await sql<Record<string, unknown>>`select * from purchase_counter_buckets where ${bucket}`.execute(db)
    ).rows[0]!;
    await sql`delete from purchase_counter_buckets where ${bucket}`.execute(db);
    expect(await refusal(warm)).toEqual({ table: 'purchase_counter_buckets', id, column: 'purchases' });
    expect(await refusal(new CounterMemory())).toEqual({ table: 'purchase_counter_buckets', id, column: 'purchases' });
    await sql`insert into purchase_counter_buckets (subject_kind, subject_id, span, bucket_start, currency, purchases,
      spend_minor) values (${saved.subject_kind}, ${saved.subject_id}, ${saved.span}, ${saved.bucket_start},
      ${saved.currency}, ${saved.purchases}, ${saved.spend_minor})`.execute(db);
    expect(await maintained(new CounterMemory(), parties, now)).toEqual(
      await readPurchaseCounters(rt.ctx.store.db, parties, now),
    );
  });
});

describe.each(dialects)('forged purchase counters over HTTP on %s', (dialect) => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  const HOURLY = {
    ...E2E_PACK,
    pack_id: 'ns:rule_pack:hourly_counters',
    reasons: E2E_PACK.reasons.filter((r) => r.code === 'hourly_count_exceeded'),
    rules: E2E_PACK.rules
      .filter((r) => r.rule_id === 'hourly')
      .map((r) => ({ ...r, reason: 'hourly_counters.hourly_count_exceeded' })),
    tests: [
      {
        name: 'fourth purchase denied',
        context: { request: { action: 'execute' }, facts: { counters: { purchases_1h: 3 } } },
        expect: { effect: 'deny', reason: 'hourly_counters.hourly_count_exceeded' },
      },
    ],
  };
  const body = {
    actor_entity_id: 'ns:entity:agent:shopper-1',
    principal_entity_id: 'ns:entity:person:alice',
    subject: 'ns:capability:payment_action:card_purchase',
    resource: { merchant_id: 'grocer-1', amount: 5, currency: 'EUR' },
    scope: { instrument: 'ns:card_token:tok-1' },
  };
  const authorize = () => world.call('POST', '/v1/runtime/authorize', body, world.runtimeToken);

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect, config: { requireSignedRequests: false } });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
      scope: {
        max_amount_per_purchase: { amount: 50, currency: 'EUR' },
        max_daily_amount: { amount: 1000, currency: 'EUR' },
        valid_until: inOneYear(),
      },
    });
    await world.must('POST', '/v1/rule-packs', HOURLY);
    await world.must('POST', '/v1/rule-packs/hourly_counters/versions/1.0.0/publish');
    await world.must('POST', '/v1/rule-activations', {
      pack_id: 'hourly_counters',
      version: '1.0.0',
      target: { principal_entity_id: 'ns:entity:person:alice' },
      mode: 'enforce',
    });
  }, 120_000);
  afterAll(async () => rt?.close());

  it('authorize refuses a lowered bucket (503, nothing committed) and verify names it', async () => {
    // three purchases, one failed and one refunded through the API: one still counts
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await authorize();
      expect(res.body.decision, JSON.stringify(res.body)).toBe('allow_with_constraints');
      ids.push(res.body.policy_decision_id);
    }
    const outcome = (id: string, o: string) =>
      world.must('POST', '/v1/runtime/outcomes', { policy_decision_id: id, outcome: o }, world.runtimeToken);
    await outcome(ids[0]!, 'failed');
    await outcome(ids[1]!, 'executed');
    await outcome(ids[1]!, 'refunded');
    await outcome(ids[2]!, 'executed');
    expect((await world.call('GET', '/v1/audit/verify')).body).toMatchObject({ valid: true });
    // two more allowed (1 + 2 = 3 live), the fourth denied by the hourly rule: the counters saw the outcomes
    expect((await authorize()).body.decision).toBe('allow_with_constraints');
    expect((await authorize()).body.decision).toBe('allow_with_constraints');
    expect((await authorize()).body.reason).toBe('hourly_counters.hourly_count_exceeded');

    const db = rt.ctx.store.db;
    const decisions = async () =>
      Number(
        (
          await db
            .selectFrom('decisions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst()
        )?.n,
      );
    const before = await decisions();
    const alice = sql`subject_kind = 'principal' and subject_id = 'ns:entity:person:alice'`;
    const saved = (
      await sql<{ span: string; bucket_start: string; purchases: number | string }>`select span, bucket_start, purchases
        from purchase_counter_buckets where ${alice}`.execute(db)
    ).rows;
    // one of each span (the purchases are seconds apart), three live purchases in each
    expect(saved.map((r) => Number(r.purchases)).reduce((a, b) => Math.max(a, b), 0)).toBe(3);
    // lowered to let a fourth purchase through (whichever span the window reads them from)
    await sql`update purchase_counter_buckets set purchases = 0 where ${alice}`.execute(db);
    const refused = await authorize();
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body).toMatchObject({
      code: 'audit_unavailable',
      integrity: { table: 'purchase_counter_buckets', column: 'purchases' },
    });
    expect(refused.body.integrity.id).toMatch(/^principal ns:entity:person:alice (minute|hour|day) \S+ EUR$/);
    expect(await decisions()).toBe(before);
    const verify = (await world.call('GET', '/v1/audit/verify')).body;
    expect(verify.valid).toBe(false);
    expect(JSON.stringify(verify)).toMatch(/purchase_counter_buckets/);
    expect(JSON.stringify(verify)).toMatch(/principal ns:entity:person:alice (minute|hour|day) /);

    for (const row of saved) {
      await sql`update purchase_counter_buckets set purchases = ${row.purchases}
        where ${alice} and span = ${row.span} and bucket_start = ${row.bucket_start}`.execute(db);
    }
    expect((await authorize()).body.reason).toBe('hourly_counters.hourly_count_exceeded');
    expect((await world.call('GET', '/v1/audit/verify')).body).toMatchObject({ valid: true });
  }, 60_000);
});
