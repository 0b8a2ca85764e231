/**
 * Issue 30: "answers in well under 100 ms over a 100,000-grant store (bench, against a plain indexed lookup in the
 * same run)". An in-process service (SQLite file, and PostgreSQL when reachable) holding ~100,000 grants: alice's
 * real three-level tree (root -> planner -> shopper-1, API-made, signed, with a purchase moving the spend counters)
 * plus 1,000 filler grants under her root, and 99,000 filler grants under bob's root (test/support/grant-tree.ts, bulk
 * inserted, not timed). Each graph query is then timed over loopback HTTP, one request at a time, rounds interleaved
 * with the baseline `GET /v1/grants/{id}` (one indexed row) so drift of the shared machine weighs on all alike. Every
 * answer is checked (status, and that it holds what the query must find).
 */
import os from 'node:os';
import { sql } from 'kysely';
import type { Dialect } from '../packages/server/src/store/index.ts';
import { buildDelegationWorld, PURCHASE } from '../packages/server/test/support/delegation-world.ts';
import { testDialects } from '../packages/server/test/support/dialects.ts';
import { inOneYear } from '../packages/server/test/support/fixtures.ts';
import { insertGrantTree } from '../packages/server/test/support/grant-tree.ts';
import { ADMIN_TOKEN, startTestRuntime } from '../packages/server/test/support/test-runtime.ts';
import type { Benchmark, BenchReport, Measurement } from './lib/bench-report.ts';
import { toMeasurement } from './revocation-cascade.ts';

const ROUNDS = Number(process.env.AAR_BENCH_GRAPH_ROUNDS ?? 200);
const WARMUP = 20;
const ALICE_FILLER = 1_000;
const BOB_FILLER = 99_000;

export const graphBench: Benchmark = {
  name: 'graph',
  description:
    'the authority graph queries (signed principal graph, spenders, capabilities, paths, blast radius) over a ~100,000-grant store, against GET /v1/grants/{id} in the same run, loopback HTTP, SQLite and PostgreSQL.',
  run: () => runGraphBench(),
};

interface Query {
  name: string;
  path: string;
  /** throws when the answer is not what the query must give */
  check: (body: Record<string, unknown>) => void;
  baseline?: boolean;
}

export interface GraphBenchOptions {
  rounds?: number;
  /** filler grants under alice's root (default 1,000) and bob's (default 99,000) */
  aliceFiller?: number;
  bobFiller?: number;
}

export async function runGraphBench(options: GraphBenchOptions = {}): Promise<BenchReport> {
  const rounds = options.rounds ?? ROUNDS;
  const fill = { alice: options.aliceFiller ?? ALICE_FILLER, bob: options.bobFiller ?? BOB_FILLER };
  const measurements: Measurement[] = [];
  const notes = [
    `load average at start ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  ];
  const dialects = await testDialects();
  for (const dialect of dialects) measurements.push(...(await measureDialect(dialect, rounds, fill, notes)));
  if (!dialects.includes('postgres')) notes.push('PostgreSQL not reachable: its rows are skipped');
  notes.push(
    `${rounds} timed requests per query (after ${WARMUP} untimed), one at a time, rounds interleaved across the ` +
      'queries; client wall time of each HTTP round trip (loopback, keep-alive)',
  );
  notes.push(
    'the signed principal graph also signs (or reuses) an audit checkpoint and reads the graph inside one ' +
      'write-queue unit; pages hold limit=100 grants',
  );
  return { name: 'graph', description: graphBench.description, measurements, notes };
}

async function measureDialect(
  dialect: Dialect,
  rounds: number,
  fill: { alice: number; bob: number },
  notes: string[],
): Promise<Measurement[]> {
  const rt = await startTestRuntime({ dialect });
  try {
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    const w = await buildDelegationWorld(base, ADMIN_TOKEN);
    const delegated = async (parent: string, by: 'concierge' | 'planner', to: string, scope: object) => {
      const res = await w.delegate(parent, by, to, scope as Record<string, unknown>);
      if (res.status !== 201) throw new Error(`delegate -> ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.grant_id as string;
    };
    const root = w.root.grant_id as string;
    const middle = await delegated(root, 'concierge', 'ns:entity:agent:planner', {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
      may_delegate: true,
    });
    const leaf = await delegated(middle, 'planner', 'ns:entity:agent:shopper-1', {
      max_daily_amount: { amount: 40, currency: 'EUR' },
    });
    const bought = await w.authorize('shopper-1', w.purchase('shopper-1', 12.34));
    if (bought.body.decision !== 'allow_with_constraints') throw new Error(`purchase: ${JSON.stringify(bought.body)}`);

    await w.must('POST', '/v1/card-tokens', {
      id: 'tok-b',
      principal_entity_id: 'ns:entity:person:bob',
      network_token: 'ntk_bob',
    });
    const bobRoot = await w.must('POST', '/v1/grants', {
      principal_entity_id: 'ns:entity:person:bob',
      actor_entity_id: 'ns:entity:agent:concierge',
      capability_id: PURCHASE,
      resource_id: 'ns:credential:card-token:tok-b',
      scope: {
        max_amount_per_purchase: { amount: 100, currency: 'EUR' },
        max_daily_amount: { amount: 300, currency: 'EUR' },
        may_delegate: true,
        valid_until: inOneYear(),
      },
    });
    const template = JSON.stringify((await w.must('GET', `/v1/grants/${leaf}`)).link ?? {});
    const fillStarted = performance.now();
    await insertGrantTree(rt.ctx, { root: w.root, size: fill.alice + 1, template });
    await insertGrantTree(rt.ctx, { root: bobRoot, size: fill.bob + 1, template });
    // statistics as a live database has them (autovacuum would analyze a table that grew this much, later)
    if (dialect === 'postgres') await sql`analyze`.execute(rt.ctx.store.db);
    const count = await rt.ctx.store.db
      .selectFrom('grants')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    notes.push(
      `${dialect}: ${Number(count.n).toLocaleString('en-US')} grants in the store (filler inserted in ` +
        `${((performance.now() - fillStarted) / 1000).toFixed(1)} s, not timed)`,
    );

    const items = (body: Record<string, unknown>) => body.items as { leaf_grant_id?: string; grant_id?: string }[];
    const must = (ok: boolean, what: string) => {
      if (!ok) throw new Error(`graph bench: ${what}`);
    };
    // grant-tree.ts gives filler grant n (1..size-1) to agent tree-(n mod 100): tree-7 holds these many
    const held = (n: number) => (n >= 7 ? Math.floor((n - 7) / 100) + 1 : 0);
    const busy = held(fill.alice) + held(fill.bob);
    const queries: Query[] = [
      {
        name: 'GET /v1/grants/{id} (one indexed row)',
        path: `/v1/grants/${leaf}`,
        baseline: true,
        check: (b) => must(b.grant_id === leaf, 'grant'),
      },
      {
        name: 'signed principal graph (limit 100)',
        path: '/v1/graph/principals/ns:entity:person:alice',
        check: (b) => must((b.nodes as unknown[]).length > 100 && typeof b.signature === 'object', 'principal graph'),
      },
      {
        name: 'spenders on a card token (limit 100)',
        path: '/v1/graph/card-tokens/tok-1/spenders',
        check: (b) => must(items(b).length === 100 && b.next_cursor !== null, 'spenders'),
      },
      {
        name: 'capabilities of an agent (2 paths)',
        path: '/v1/graph/agents/ns:entity:agent:shopper-1/capabilities',
        check: (b) =>
          must(
            items(b).some((p) => p.leaf_grant_id === leaf),
            'capabilities',
          ),
      },
      {
        name: `capabilities of a busy agent (page of ${Math.min(100, busy)} of ~${busy.toLocaleString('en-US')})`,
        path: '/v1/graph/agents/ns:entity:agent:tree-7/capabilities',
        check: (b) => must(items(b).length === Math.min(100, busy), 'busy capabilities'),
      },
      {
        name: 'paths principal -> agent',
        path: `/v1/graph/paths?from=ns:entity:person:alice&to=ns:entity:agent:shopper-1`,
        check: (b) => must(items(b).length === 1, 'paths'),
      },
      {
        name: 'blast radius of a middle grant (2 grants)',
        path: `/v1/graph/grants/${middle}/blast-radius`,
        check: (b) => must((b.counts as { grants: number }).grants === 2, 'blast radius'),
      },
      {
        name: `blast radius of a root grant (${(fill.alice + 3).toLocaleString('en-US')} grants, page of 100)`,
        path: `/v1/graph/grants/${root}/blast-radius`,
        check: (b) => must((b.counts as { grants: number }).grants === fill.alice + 3, 'root blast radius'),
      },
    ];
    const samples = new Map<string, number[]>(queries.map((q) => [q.name, []]));
    const once = async (q: Query) => {
      const started = performance.now();
      const res = await fetch(`${base}${q.path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const body = (await res.json()) as Record<string, unknown>;
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`${q.path} -> ${res.status} ${JSON.stringify(body)}`);
      q.check(body);
      return ms;
    };
    for (let i = 0; i < WARMUP; i++) for (const q of queries) await once(q);
    for (let i = 0; i < rounds; i++) for (const q of queries) samples.get(q.name)!.push(await once(q));
    const group = `graph queries, ~100k-grant store (${dialect})`;
    return queries.map((q) => {
      const m = toMeasurement(group, `${dialect}: ${q.name}`, samples.get(q.name)!);
      return q.baseline ? { ...m, baseline: true } : m;
    });
  } finally {
    await rt.close();
  }
}
