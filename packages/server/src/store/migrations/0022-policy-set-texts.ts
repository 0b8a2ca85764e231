import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { guardPostgresTable, guardSqliteTable, POLICY_SET_TEXTS_GUARD } from './write-once-guards.ts';

/**
 * `policy_set_texts`: the canonical text of each policy set a decision record carries (services/decisions/
 * policy-set-texts.ts), stored once and named by its SHA-256 from the records that carry it (record codec 2). With
 * five packs of ten rules a record is ~44 KB of which ~40 KB is the policy set, the same for every decision until an
 * activation changes; storing it once is what keeps a decision's write, and the store, at the size of a decision.
 * Content-addressed and write-once on both dialects: a row is only ever inserted, and a record whose policy set text
 * was edited or deleted no longer hashes to the digest its audit entry commits to (GET /v1/audit/verify names it).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('policy_set_texts')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('text', 'text', (c) => c.notNull())
    .execute();
  if (dialect === 'sqlite') await guardSqliteTable(db, POLICY_SET_TEXTS_GUARD, true);
  else await guardPostgresTable(db, POLICY_SET_TEXTS_GUARD);
}
