/**
 * Bytes on disk per allowed decision (issue 10: at most 3 KB), on the embedded default (SQLite file, WAL): a fresh
 * service authorizes AAR_BENCH_STORAGE_DECISIONS allowed purchases (default 2,000) over loopback HTTP, each signed
 * by the agent; `dbstat` after a WAL checkpoint gives what every table and its indexes grew by (decision row, event,
 * audit entry and nodes, nonce, spend counter). The baseline is the shape before migration 0010, built in the same
 * run from the same decisions (decision-storage/legacy-shape.ts). The timed rows are `GET /v1/audit/verify` over
 * those decisions, the records in their stored shape against the same rows rewritten into the old one.
 * See bench/README.md.
 */
import { loadavg } from 'node:os';
import { buildPurchaseWorld } from '../packages/server/test/support/purchase-world.ts';
import { inOneYear } from '../packages/server/test/support/fixtures.ts';
import { ADMIN_TOKEN, auth, startTestRuntime } from '../packages/server/test/support/test-runtime.ts';
import { bytesPerTable, grownTables, type TableBytes } from './decision-storage/bytes-per-table.ts';
import { buildLegacyEvents, buildLegacyTable, toLegacyShape } from './decision-storage/legacy-shape.ts';
import type { Benchmark, BenchReport, Measurement } from './lib/bench-report.ts';

const DECISIONS = Number(process.env.AAR_BENCH_STORAGE_DECISIONS ?? 2000);
const IN_FLIGHT = 8;

export interface StorageRun {
  decisions: number;
  /** per table, bytes per decision */
  perDecision: Map<string, TableBytes>;
  /** the decisions table alone in the old shape (indexes included), bytes per decision */
  legacyDecisions: TableBytes;
  /** what a decision's event takes more with the old writer's envelope text stored (bytes per decision) */
  eventsGrowth: TableBytes;
  verifyMs: number;
  legacyVerifyMs: number;
}

export async function measureDecisionStorage(decisions: number): Promise<StorageRun> {
  const rt = await startTestRuntime();
  try {
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    const world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
      scope: {
        max_amount_per_purchase: { amount: 1000, currency: 'EUR' },
        max_daily_amount: { amount: 1_000_000_000, currency: 'EUR' },
        allowed_jurisdictions: ['DE', 'FR'],
        valid_until: inOneYear(),
      },
    });
    await world.authorize(world.purchase(1)); // the first decision's one-off rows (spend counter) before measuring
    const db = rt.ctx.store.db;
    const before = await bytesPerTable(db);
    let sent = 0;
    const worker = async () => {
      while (sent < decisions) {
        sent += 1;
        const answer = await world.authorize(world.purchase(1));
        if (answer.body?.decision !== 'allow_with_constraints') {
          throw new Error(`authorize answered ${answer.status} ${JSON.stringify(answer.body)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const grown = grownTables(before, await bytesPerTable(db));
    const perDecision = new Map(
      [...grown].map(([t, b]) => [t, { pages: b.pages / decisions, payload: b.payload / decisions }]),
    );

    // each shape's second run is the one timed (the first warms the code paths of that shape up)
    const verify = async () => {
      let ms = 0;
      for (let run = 0; run < 2; run++) {
        const started = performance.now();
        const res = await rt.app.inject({ method: 'GET', url: '/v1/audit/verify', headers: auth() });
        ms = performance.now() - started;
        if (!res.json().valid) throw new Error(`/verify: ${res.body}`);
      }
      return ms;
    };
    const verifyMs = await verify();
    const rows = await buildLegacyTable(db);
    const events = await buildLegacyEvents(db);
    const tables = await bytesPerTable(db);
    const legacy = tables.get('legacy_decisions')!;
    const legacyEvents = tables.get('legacy_events')!;
    const eventsNow = tables.get('events')!;
    await toLegacyShape(db);
    const legacyVerifyMs = await verify();
    return {
      decisions,
      perDecision,
      legacyDecisions: { pages: legacy.pages / rows, payload: legacy.payload / rows },
      // the same events (the world's own too): what differs is the envelope text of each decision event
      eventsGrowth: {
        pages: (legacyEvents.pages - eventsNow.pages) / Math.max(1, events.filled),
        payload: (legacyEvents.payload - eventsNow.payload) / Math.max(1, events.filled),
      },
      verifyMs,
      legacyVerifyMs,
    };
  } finally {
    await rt.close();
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

export const decisionStorage: Benchmark = {
  name: 'decision-storage',
  description:
    'Bytes on disk per allowed decision on SQLite (dbstat per table, indexes included) against the shape before migration 0010, and /verify over the decisions in both shapes.',
  async run(): Promise<BenchReport> {
    const run = await measureDecisionStorage(DECISIONS);
    const total = (m: Map<string, TableBytes>) => [...m.values()].reduce((s, b) => s + b.pages, 0);
    const now = total(run.perDecision);
    const decisionsNow = run.perDecision.get('decisions') ?? { pages: 0, payload: 0 };
    const before = now - decisionsNow.pages + run.legacyDecisions.pages + run.eventsGrowth.pages;
    const group = `verify ${run.decisions.toLocaleString('en-US')} decisions`;
    const measurements: Measurement[] = [
      {
        group,
        name: 'records in the shape before 0010',
        opsPerSecond: 1000 / run.legacyVerifyMs,
        meanMs: run.legacyVerifyMs,
        samples: 1,
        baseline: true,
      },
      {
        group,
        name: 'records stored once (0010)',
        opsPerSecond: 1000 / run.verifyMs,
        meanMs: run.verifyMs,
        samples: 1,
      },
    ];
    const tables = [...run.perDecision]
      .sort((a, b) => b[1].pages - a[1].pages)
      .map(([t, b]) => `${t} ${Math.round(b.pages)} B (rows ${Math.round(b.payload)} B)`)
      .join(', ');
    return {
      name: decisionStorage.name,
      description: decisionStorage.description,
      measurements,
      notes: [
        `on disk per allowed decision: ${kb(now)} (before 0010: ${kb(before)}, ${(before / now).toFixed(2)}× as much); the decision row with its indexes ${kb(decisionsNow.pages)} (before: ${kb(run.legacyDecisions.pages)}; rows alone ${Math.round(decisionsNow.payload)} B against ${Math.round(run.legacyDecisions.payload)} B); the event ${kb(run.perDecision.get('events')?.pages ?? 0)} (its envelope text, no longer stored, was ${Math.round(run.eventsGrowth.pages)} B more)`,
        `per table (pages, indexes included): ${tables}`,
        `${run.decisions.toLocaleString('en-US')} allowed purchases, each signed by the agent and sent over loopback HTTP, ${IN_FLIGHT} in flight; dbstat after a WAL checkpoint, before and after; the old shape rebuilt from the same rows (legacy_decisions and legacy_events, same indexes)`,
        `load average at the end: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' / ')}`,
      ],
    };
  },
};
