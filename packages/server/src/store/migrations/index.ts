import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { Dialect } from '../dialect.ts';
import * as foundation from './0001-foundation.ts';

interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** The one migration set, in order. Names never change once released; add new files at the end. */
const MIGRATIONS: ReadonlyArray<readonly [string, DialectMigration]> = [['0001-foundation', foundation]];

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of MIGRATIONS) out[name] = { up: (db) => m.up(db, dialect) };
      return out;
    },
  };
}
