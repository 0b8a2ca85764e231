/**
 * The concurrency claims, over real sockets: concurrent purchases never together exceed the daily limit,
 * and a signed request is honoured at most once, whether the requests reach one process or several processes
 * sharing one PostgreSQL. Each purchase is signed individually by the agent (its own nonce), as an agent would.
 */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Database, type Store } from '../../src/store/index.ts';
import { testDialects } from '../support/dialects.ts';
import { inOneYear } from '../support/fixtures.ts';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.ts';
import { buildPurchaseWorld, type CallResult } from '../support/purchase-world.ts';
import { deliverAuthorize, signAuthorize } from '../support/signed-authorize.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

/** 100.00 EUR a day, 30.00 EUR fits every other limit: only the daily limit can refuse. */
const scope = () => ({
  max_amount_per_purchase: { amount: 50, currency: 'EUR' },
  max_daily_amount: { amount: 100, currency: 'EUR' },
  requires_approval_above: { amount: 40, currency: 'EUR' },
  allowed_jurisdictions: ['DE'],
  valid_until: inOneYear(),
});

type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;

const CONCURRENT = 50;
const AMOUNT = 30;
const REPLAYS = 10;

function summarize(results: CallResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    const key = r.status === 200 ? `${r.body.decision}/${r.body.reason}` : `http ${r.status}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

function expectExactlyThreeAllowed(results: CallResult[], context?: () => string): void {
  expect(results).toHaveLength(CONCURRENT);
  expect(summarize(results), context?.()).toEqual({
    'allow_with_constraints/scope_within_attenuated_authority': 3,
    'deny/daily_limit_exceeded': CONCURRENT - 3,
  });
}

/** What the store holds afterwards: 90.00 EUR reserved for the day, 3 reservations, one event per decision. */
async function expectStoreHoldsThree(db: Kysely<Database>, grantId: string, results: CallResult[]): Promise<void> {
  const ids = results.map((r) => r.body.policy_decision_id as string);
  const decisions = await db
    .selectFrom('decisions')
    .select(['policy_decision_id', 'decision', 'outcome', 'spend_day', 'leaf_grant_id'])
    .where('policy_decision_id', 'in', ids)
    .execute();
  expect(decisions).toHaveLength(CONCURRENT);
  const reserved = decisions.filter((d) => d.outcome === 'reserved');
  expect(reserved).toHaveLength(3);
  expect(reserved.every((d) => d.decision === 'allow_with_constraints' && d.leaf_grant_id === grantId)).toBe(true);
  const days = new Set(reserved.map((d) => d.spend_day));
  expect(days.size).toBe(1);
  expect([today(-60_000), today(0)]).toContain([...days][0]); // the UTC day of the requests, just sent

  const counters = await db.selectFrom('spend_counters').selectAll().where('grant_id', '=', grantId).execute();
  expect(counters.map((c) => ({ ...c, reserved_minor: Number(c.reserved_minor) }))).toEqual([
    { grant_id: grantId, day: [...days][0], currency: 'EUR', reserved_minor: 3 * AMOUNT * 100 },
  ]);

  const events = await db
    .selectFrom('events')
    .select(['event_type', 'subject_ref'])
    .where('subject_ref', 'in', ids)
    .execute();
  expect(events).toHaveLength(CONCURRENT);
  const allowedIds = new Set(reserved.map((d) => d.policy_decision_id));
  for (const e of events) {
    expect(e.event_type).toBe(
      allowedIds.has(e.subject_ref) ? 'ns.purchase_authority.allowed' : 'ns.purchase_authority.denied',
    );
  }
}

/** One winner (allowed), every other copy `payload_replayed`, one nonce remembered. */
async function expectOneHonoured(
  db: Kysely<Database>,
  results: CallResult[],
  nonce: string,
  context?: () => string,
): Promise<void> {
  expect(results).toHaveLength(REPLAYS);
  expect(summarize(results), context?.()).toEqual({
    'allow_with_constraints/scope_within_attenuated_authority': 1,
    'deny/payload_replayed': REPLAYS - 1,
  });
  const remembered = await db.selectFrom('request_nonces').select('keyid').where('nonce', '=', nonce).execute();
  expect(remembered).toEqual([{ keyid: 'ns:entity:agent:shopper-1' }]);
  const ids = results.map((r) => r.body.policy_decision_id as string);
  expect(new Set(ids).size).toBe(REPLAYS); // every copy was decided and recorded, each on its own
  const reserved = await db
    .selectFrom('decisions')
    .select('policy_decision_id')
    .where('policy_decision_id', 'in', ids)
    .where('outcome', '=', 'reserved')
    .execute();
  expect(reserved).toHaveLength(1);
}

const today = (shiftMs: number) => new Date(Date.now() + shiftMs).toISOString().slice(0, 10);

function nonceOf(signatureInput: string | undefined): string {
  const nonce = /;nonce="([^"]+)"/.exec(signatureInput ?? '')?.[1];
  if (!nonce) throw new Error(`no nonce in signature-input: ${signatureInput}`);
  return nonce;
}

describe.each(dialects)('daily limit and replays under concurrency, one process on %s', (dialect) => {
  let rt: TestRuntime | undefined;
  let base: string;
  let world: World;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN, { scope: scope() });
  });
  afterAll(async () => rt?.close());

  it(`allows exactly 3 of ${CONCURRENT} concurrent ${AMOUNT} EUR purchases against 100 EUR a day`, async () => {
    const results = await Promise.all(
      Array.from({ length: CONCURRENT }, () => world.authorize(world.purchase(AMOUNT))),
    );
    expectExactlyThreeAllowed(results);
    await expectStoreHoldsThree(rt!.ctx.store.db, world.grant.grant_id, results);
  });

  it(`honours one of ${REPLAYS} concurrent copies of one signed request`, async () => {
    // 5 EUR still fits the day's remaining 10 EUR: only the nonce can refuse a copy
    const signed = await signAuthorize(world.signer, base, world.purchase(5));
    const results = await Promise.all(
      Array.from({ length: REPLAYS }, () => deliverAuthorize(signed, { to: base, runtimeToken: world.runtimeToken })),
    );
    await expectOneHonoured(rt!.ctx.store.db, results, nonceOf(signed.headers['signature-input']));
  });
});

describe.runIf(dialects.includes('postgres'))('daily limit and replays across two processes on postgres', () => {
  let cluster: PgCluster | undefined;
  let store: Store | undefined;
  let world: World;

  beforeAll(async () => {
    cluster = await startPgCluster(2, ADMIN_TOKEN);
    store = openStore({ databaseUrl: cluster.databaseUrl, poolSize: 2 });
    world = await buildPurchaseWorld(cluster.servers[0]!.base, ADMIN_TOKEN, { scope: scope() });
  }, 90_000);
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  }, 30_000);

  it(`allows exactly 3 of ${CONCURRENT} concurrent purchases split between the processes`, async () => {
    const servers = cluster!.servers;
    const results = await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const to = servers[i % servers.length]!.base;
        return deliverAuthorize(await signAuthorize(world.signer, to, world.purchase(AMOUNT)), {
          to,
          runtimeToken: world.runtimeToken,
        });
      }),
    );
    expectExactlyThreeAllowed(results, () => cluster!.output());
    await expectStoreHoldsThree(store!.db, world.grant.grant_id, results);
  }, 60_000);

  it(`honours one of ${REPLAYS} copies of one signed request sent to both processes at once`, async () => {
    // both instances behind one public origin: the signed @target-uri holds for either
    const origin = 'http://aar.test';
    const signed = await signAuthorize(world.signer, origin, world.purchase(5));
    const results = await Promise.all(
      Array.from({ length: REPLAYS }, (_, i) =>
        deliverAuthorize(signed, {
          to: cluster!.servers[i % 2]!.base,
          host: 'aar.test',
          runtimeToken: world.runtimeToken,
        }),
      ),
    );
    await expectOneHonoured(store!.db, results, nonceOf(signed.headers['signature-input']), () => cluster!.output());
  }, 60_000);
});
