/**
 * Kysely's SQLite driver prepares every statement anew; preparing costs more than running a small statement. This
 * wraps better-sqlite3's Database so `prepare` returns a cached Statement for SQL text it has seen (the service runs
 * a few dozen distinct statements). Safe because Kysely runs one statement at a time on the one connection and
 * never keeps a Statement across calls. Bounded: past the limit the cache starts over.
 *
 * It also sees every statement the connection runs (Kysely prepares right before each execution, direct-sqlite.ts
 * too, and runs it synchronously after), so it tells the store's durability barrier (wal-barrier.ts) about every
 * read and every commit, whatever its path: write queue, another transaction, an autocommit statement. A statement
 * writes unless it is both a reader and read-only (`INSERT ... RETURNING` is a reader; SQLite calls BEGIN, COMMIT,
 * SAVEPOINT and RELEASE read-only, and they are not readers). A commit is a COMMIT (or END), or a write run outside
 * a transaction. `onStatement` may throw (a failed store refuses writes); ROLLBACK is always let through, so a
 * transaction that was open when the store failed can still end.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { StatementKind } from './wal-barrier.ts';

const LIMIT = 2000;

export type SqliteDatabase = Pick<BetterSqlite3.Database, 'close' | 'prepare'>;

interface Entry {
  statement: BetterSqlite3.Statement;
  /** a write that is not a COMMIT: a commit when run outside a transaction */
  kind: StatementKind;
}

/** `onStatement` is read at every statement, so the store may set it later (the barrier starts after migrations). */
export interface WriteWatch {
  onStatement: ((kind: StatementKind) => void) | undefined;
}

const ROLLBACK = /^\s*rollback\b/i;
const COMMIT = /^\s*(commit|end)\b/i;
const TRANSACTION_CONTROL = /^\s*(begin|savepoint|release)\b/i;

function kindOf(statement: BetterSqlite3.Statement, source: string): StatementKind {
  if (ROLLBACK.test(source)) return 'rollback';
  if (COMMIT.test(source)) return 'commit';
  if (statement.reader && statement.readonly) return 'read';
  return 'write';
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
        entry = { statement, kind: kindOf(statement, source) };
        cache.set(source, entry);
      }
      const onStatement = watch?.onStatement;
      if (onStatement) {
        const { kind } = entry;
        // a write outside a transaction commits by itself (BEGIN, SAVEPOINT and RELEASE open or nest one)
        const autocommit = kind === 'write' && !db.inTransaction && !TRANSACTION_CONTROL.test(source);
        onStatement(autocommit ? 'commit' : kind);
      }
      return entry.statement;
    },
  } as SqliteDatabase;
}
