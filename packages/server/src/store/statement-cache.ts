/**
 * Kysely's SQLite driver prepares every statement anew; preparing costs more than running a small statement. This
 * wraps better-sqlite3's Database so `prepare` returns a cached Statement for SQL text it has seen (the service runs
 * a few dozen distinct statements). Safe because Kysely runs one statement at a time on the one connection and
 * never keeps a Statement across calls. Bounded: past the limit the cache starts over.
 */
import type BetterSqlite3 from 'better-sqlite3';

const LIMIT = 2000;

export type SqliteDatabase = Pick<BetterSqlite3.Database, 'close' | 'prepare'>;

export function withStatementCache(db: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => db.close(),
    prepare(source: string) {
      let statement = cache.get(source);
      if (!statement) {
        if (cache.size >= LIMIT) cache.clear();
        statement = db.prepare(source);
        cache.set(source, statement);
      }
      return statement;
    },
  } as SqliteDatabase;
}
