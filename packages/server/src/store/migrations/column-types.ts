import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** An auto-increment integer primary key named `seq`: SQLite rowid alias, PostgreSQL identity. */
export function withSeq<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: Dialect,
): CreateTableBuilder<T, 'seq'> {
  return dialect === 'postgres'
    ? table.addColumn('seq', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    : table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement());
}
