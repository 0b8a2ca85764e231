/**
 * A store opened for reading only, for offline verification (`aar verify-audit`): the SQLite file is opened with
 * `readonly` and must exist (nothing is created, migrated or checkpointed), and every PostgreSQL session is read-only
 * (`default_transaction_read_only`), so a verifier cannot change what it verifies, whatever code runs on it.
 * It refuses a store whose schema is behind this version's migrations: the checks read today's columns, and a store
 * written by an older version is verified by that version or after `aar migrate`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { AarError } from '@aar/core';
import type { AppConfig } from '../config.ts';
import type { Dialect } from '../store/dialect.ts';
import { migrationProvider } from '../store/migrations/index.ts';
import { redactUrl } from '../store/open-store.ts';
import type { Database } from '../store/schema.ts';

export interface ReadOnlyStore {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** where it is, without credentials */
  readonly location: string;
  close(): Promise<void>;
}

// pg returns int8 (`seq`) as a string by default; our sequences stay far below 2^53 (as in store/open-store.ts)
const PG_INT8 = 20;

export async function openReadOnlyStore(config: Pick<AppConfig, 'dataDir' | 'databaseUrl'>): Promise<ReadOnlyStore> {
  const store = config.databaseUrl ? openPostgres(config.databaseUrl) : openSqlite(join(config.dataDir, 'aar.sqlite'));
  try {
    await requireCurrentSchema(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

function openSqlite(file: string): ReadOnlyStore {
  if (!existsSync(file)) {
    throw new AarError('invalid_request', `no store at \`${file}\` (set --data-dir, or --database-url for PostgreSQL)`);
  }
  let database: SQLite.Database;
  try {
    database = new SQLite(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new AarError('invalid_request', `cannot open \`${file}\` read-only: ${(error as Error).message}`);
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: 'sqlite', location: file, close: () => db.destroy() };
}

function openPostgres(url: string): ReadOnlyStore {
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format),
    },
  });
  // every session read-only before its first query (pg queues queries behind this one); a session that cannot be
  // made read-only is ended, so the queries behind it fail instead of running writable
  pool.on('connect', (client) => {
    client.query('set session characteristics as transaction read only').catch(() => void client.end());
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', location: redactUrl(url), close: () => db.destroy() };
}

async function requireCurrentSchema(store: ReadOnlyStore): Promise<void> {
  const known = Object.keys(await migrationProvider(store.dialect).getMigrations());
  let applied: string[];
  try {
    const rows = (await sql<{ name: string }>`select name from kysely_migration`.execute(store.db)).rows;
    applied = rows.map((r) => r.name);
  } catch (error) {
    throw new AarError(
      'invalid_request',
      `\`${store.location}\` is not an aar store (no migrations table): ${(error as Error).message}`,
    );
  }
  const missing = known.filter((name) => !applied.includes(name));
  if (missing.length > 0) {
    throw new AarError(
      'invalid_request',
      `the store at \`${store.location}\` lacks migrations ${missing.join(', ')}: verify it with the aar version ` +
        'that wrote it, or after `aar migrate`',
    );
  }
}
