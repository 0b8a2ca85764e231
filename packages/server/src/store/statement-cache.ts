/**
 * Kysely's SQLite driver prepares every statement anew; preparing costs more than running a small statement. This
 * wraps better-sqlite3's Database so `prepare` returns a cached Statement for SQL text it has seen (the service runs
 * a few dozen distinct statements). Safe because Kysely runs one statement at a time on the one connection and
 * never keeps a Statement across calls. Bounded: past the limit the cache starts over.
 *
 * It also sees every statement the connection runs (Kysely prepares before each execution, direct-sqlite.ts too),
 * so it tells the store's durability barrier (wal-barrier.ts) about every write, whatever its path: write queue,
 * another transaction, an autocommit statement. A statement writes unless it is both a reader and read-only:
 * `INSERT ... RETURNING` is a reader, and SQLite calls BEGIN, COMMIT, SAVEPOINT and RELEASE read-only (they
 * return no rows, so they are not readers). `onWrite` may throw (a failed store refuses writes); ROLLBACK is always
 * let through, so a transaction that was open when the store failed can still end.
 */
import type BetterSqlite3 from 'better-sqlite3';

const LIMIT = 2000;

export type SqliteDatabase = Pick<BetterSqlite3.Database, 'close' | 'prepare'>;

interface Entry {
  statement: BetterSqlite3.Statement;
  /** `onWrite` runs before it (see above) */
  writes: boolean;
}

/** `onWrite` is read at every write, so the store may set it later (the barrier starts after migrations). */
export interface WriteWatch {
  onWrite: (() => void) | undefined;
}

export function withStatementCache(db: BetterSqlite3.Database, watch?: WriteWatch): SqliteDatabase {
  const cache = new Map<string, Entry>();
  return {
    close: () => db.close(),
    prepare(source: string) {
      let entry = cache.get(source);
      if (!entry) {
        if (cache.size >= LIMIT) cache.clear();
        const statement = db.prepare(source);
        const writes = (!statement.reader || !statement.readonly) && !/^\s*rollback\b/i.test(source);
        entry = { statement, writes };
        cache.set(source, entry);
      }
      if (entry.writes) watch?.onWrite?.();
      return entry.statement;
    },
  } as SqliteDatabase;
}
