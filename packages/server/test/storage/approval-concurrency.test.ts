/**
 * Approvals under concurrency, over real sockets, on one process per database and on two processes sharing one
 * PostgreSQL: an approval allows one purchase however many retries race for it, and the principal's decision is
 * taken once however many decisions race to set it.
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

const scope = () => ({
  max_amount_per_purchase: { amount: 500, currency: 'EUR' },
  max_daily_amount: { amount: 1000, currency: 'EUR' },
  requires_approval_above: { amount: 40, currency: 'EUR' },
  allowed_jurisdictions: ['DE'],
  valid_until: inOneYear(),
});

type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;

const RACERS = 10;

function summarize(results: CallResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    const key = r.status === 200 ? `${r.body.decision}/${r.body.reason}` : `http ${r.status}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/**
 * Asks for approval of `amount`, lets the principal approve it, then sends RACERS retries at once (each signed on
 * its own, spread over `bases`): exactly one is allowed, and the approval records which.
 */
async function raceApprovedRetries(world: World, db: Kysely<Database>, bases: string[], amount: number) {
  const first = await world.authorize(world.purchase(amount));
  expect(first.body).toMatchObject({ decision: 'require_approval', reason: 'amount_above_approval_threshold' });
  const { approval_id } = first.body.approval;
  const approved = await world.call(
    'POST',
    `/v1/approvals/${approval_id}/decision`,
    { approve: true },
    world.principalToken,
  );
  expect(approved.body.status).toBe('approved');

  const retry = world.purchase(amount, { policy_decision_id: first.body.policy_decision_id });
  const results = await Promise.all(
    Array.from({ length: RACERS }, async (_, i) => {
      const to = bases[i % bases.length]!;
      return deliverAuthorize(await signAuthorize(world.signer, to, retry), { to, runtimeToken: world.runtimeToken });
    }),
  );
  expect(summarize(results)).toEqual({
    'allow_with_constraints/approved_by_principal': 1,
    'deny/approval_expired': RACERS - 1,
  });
  const winner = results.find((r) => r.body.decision === 'allow_with_constraints')!;
  const row = await db.selectFrom('approvals').selectAll().where('approval_id', '=', approval_id).executeTakeFirst();
  expect(row).toMatchObject({ status: 'consumed', consumed_by: winner.body.policy_decision_id });
  const reserved = await db
    .selectFrom('decisions')
    .select('policy_decision_id')
    .where(
      'policy_decision_id',
      'in',
      results.map((r) => r.body.policy_decision_id as string),
    )
    .where('outcome', '=', 'reserved')
    .execute();
  expect(reserved).toEqual([{ policy_decision_id: winner.body.policy_decision_id }]);
}

/**
 * RACERS decisions on one pending approval at once (spread over `bases`), half approving, half rejecting: one is
 * taken, the rest are 409, and one event records it.
 */
async function raceDecisions(world: World, db: Kysely<Database>, bases: string[], amount: number) {
  const first = await world.authorize(world.purchase(amount));
  const { approval_id } = first.body.approval;
  const results = await Promise.all(
    Array.from({ length: RACERS }, async (_, i) => {
      const res = await fetch(`${bases[i % bases.length]!}/v1/approvals/${approval_id}/decision`, {
        method: 'POST',
        headers: { authorization: `Bearer ${world.principalToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ approve: i % 2 === 0 }),
      });
      return { status: res.status, body: await res.json() };
    }),
  );
  const taken = results.filter((r) => r.status === 200);
  expect(taken).toHaveLength(1);
  expect(results.filter((r) => r.status === 409).map((r) => r.body.code)).toEqual(
    Array.from({ length: RACERS - 1 }, () => 'conflict'),
  );
  const status: string = taken[0]!.body.status;
  const read = await world.call('GET', `/v1/approvals/${approval_id}`, undefined, world.principalToken);
  expect(read.body.status).toBe(status);
  const events = await db.selectFrom('events').select('event_type').where('subject_ref', '=', approval_id).execute();
  expect(events).toEqual([{ event_type: `ns.approval.${status}` }]);
}

describe.each(dialects)('approvals under concurrency, one process on %s', (dialect) => {
  let rt: TestRuntime | undefined;
  let base: string;
  let world: World;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN, { scope: scope() });
  });
  afterAll(async () => rt?.close());

  it(`allows one of ${RACERS} concurrent retries of an approved request`, async () => {
    await raceApprovedRetries(world, rt!.ctx.store.db, [base], 45);
  });

  it(`takes one of ${RACERS} concurrent decisions on an approval`, async () => {
    await raceDecisions(world, rt!.ctx.store.db, [base], 46);
  });
});

describe.runIf(dialects.includes('postgres'))('approvals under concurrency, two processes on postgres', () => {
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

  it(`allows one of ${RACERS} concurrent retries of an approved request, split between the processes`, async () => {
    await raceApprovedRetries(
      world,
      store!.db,
      cluster!.servers.map((s) => s.base),
      45,
    );
  }, 60_000);

  it(`takes one of ${RACERS} concurrent decisions on an approval, split between the processes`, async () => {
    await raceDecisions(
      world,
      store!.db,
      cluster!.servers.map((s) => s.base),
      46,
    );
  }, 60_000);
});
