import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Dialect } from './dialect.ts';
import { directSqliteDialect } from './direct-sqlite.ts';
import { migrationProvider } from './migrations/index.ts';
import { withStatementCache } from './statement-cache.ts';
import type { Database } from './schema.ts';

export interface StoreOptions {
  /** PostgreSQL connection string; when absent the embedded SQLite file is used */
  databaseUrl?: string | undefined;
  /** SQLite file path (ignored with databaseUrl) */
  sqliteFile?: string;
  /** PostgreSQL pool size */
  poolSize?: number;
}

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** a human-readable location without credentials, for logs */
  readonly location: string;
  close(): Promise<void>;
}

// pg returns int8 (our `seq`) as a string by default; our sequences stay far below 2^53.
const PG_INT8 = 20;
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export function openStore(options: StoreOptions): Store {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, types: pgTypes });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', location: redactUrl(options.databaseUrl), close: () => db.destroy() };
  }
  const file = options.sqliteFile ?? ':memory:';
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL for concurrent readers; synchronous FULL so an answered request survives power loss, not only a crash.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Temporary files in memory: above all the savepoint journal of every unit of a write batch (write-queue.ts),
  // which otherwise spills to a temp file past 64 KiB and costs ~50 page writes (syscalls) per decision. It holds
  // rollback data for the open transaction only; durability is the WAL's, unchanged.
  sqlite.pragma('temp_store = MEMORY');
  const db = new Kysely<Database>({ dialect: directSqliteDialect(withStatementCache(sqlite)) });
  return { db, dialect: 'sqlite', location: file, close: () => db.destroy() };
}

/** Applies every pending migration; safe to run from several instances at once (Kysely's migration lock). */
export async function migrateStore(store: Store): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema unless told which: pin it to the one we write to, or a
  // second deployment (or test) in another schema of the same database would be mistaken for this one.
  const schema =
    store.dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(store.db)).rows[0]?.s
      : undefined;
  const migrator = new Migrator({
    db: store.db,
    provider: migrationProvider(store.dialect),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable url)';
  }
}
