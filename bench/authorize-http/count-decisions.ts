/**
 * The decisions the service recorded, read from its SQLite file (read-only; WAL lets a reader in beside the
 * writer). Every authorize, deny included, is recorded, so the difference of two counts is what a run decided,
 * answered or not: a request cut off when the run stopped may still have been decided.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type DecisionCounts = Record<string, number>;

/** `decision/reason` → count */
export function countDecisions(dataDir: string): DecisionCounts {
  const db = new Database(join(dataDir, 'aar.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare('SELECT decision, reason, COUNT(*) AS n FROM decisions GROUP BY decision, reason')
      .all() as { decision: string; reason: string; n: number }[];
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
export async function settledDecisions(dataDir: string, timeoutMs = 5000): Promise<DecisionCounts> {
  const deadline = performance.now() + timeoutMs;
  let previous = countDecisions(dataDir);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const current = countDecisions(dataDir);
    const same = JSON.stringify(current) === JSON.stringify(previous);
    if (same || performance.now() > deadline) return current;
    previous = current;
  }
}
