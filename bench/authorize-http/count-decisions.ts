/**
 * The decisions the service recorded, read from its SQLite file (read-only; WAL lets a reader in beside the
 * writer). Every authorize, deny included, is recorded, so the difference of two counts is what a run decided,
 * answered or not: a request cut off when the run stopped may still have been decided.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

export type DecisionCounts = Record<string, number>;

/** Where the decisions are: a SQLite data dir, or a PostgreSQL URL (its search_path naming the schema). */
export type DecisionStore = string | { postgresUrl: string };

const COUNT_SQL = 'SELECT decision, reason, COUNT(*) AS n FROM decisions GROUP BY decision, reason';

/** `decision/reason` → count, from either store */
export async function countStoredDecisions(store: DecisionStore): Promise<DecisionCounts> {
  if (typeof store === 'string') return countDecisions(store);
  const client = new pg.Client({ connectionString: store.postgresUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ decision: string; reason: string; n: string }>(COUNT_SQL);
    return Object.fromEntries(rows.map((r) => [`${r.decision}/${r.reason}`, Number(r.n)]));
  } finally {
    await client.end();
  }
}

/** `decision/reason` → count */
export function countDecisions(dataDir: string): DecisionCounts {
  const db = new Database(join(dataDir, 'aar.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare(COUNT_SQL).all() as { decision: string; reason: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [`${r.decision}/${r.reason}`, r.n]));
  } finally {
    db.close();
  }
}

/** after − before, zero counts left out */
export function diffCounts(before: DecisionCounts, after: DecisionCounts): DecisionCounts {
  const diff: DecisionCounts = {};
  for (const [key, n] of Object.entries(after)) {
    const d = n - (before[key] ?? 0);
    if (d !== 0) diff[key] = d;
  }
  return diff;
}

/** Reads until two reads 200 ms apart agree: requests in flight when a run stopped are still being decided. */
export async function settledDecisions(store: DecisionStore, timeoutMs = 5000): Promise<DecisionCounts> {
  const deadline = performance.now() + timeoutMs;
  let previous = await countStoredDecisions(store);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const current = await countStoredDecisions(store);
    const same = JSON.stringify(current) === JSON.stringify(previous);
    if (same || performance.now() > deadline) return current;
    previous = current;
  }
}
