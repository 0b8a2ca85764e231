import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { BUNDLES_GUARD, guardPostgresTable, guardSqliteTable } from './write-once-guards.ts';

/**
 * Proof bundles (CONTRACT section 12): one row per signed `ns.authority_proof_bundle.v1`, write-once like the
 * evidence packs it embeds (a bundle is signed over its parts, so a stored bundle must never change under its
 * signature): the database refuses UPDATE, DELETE, TRUNCATE and REPLACE. `document` is the signed bundle's RFC 8785
 * text, exactly what GET /v1/bundles/{id} returns; a decision may have several bundles (one per purpose).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('bundles'), dialect)
    .addColumn('bundle_id', 'text', (c) => c.notNull().unique())
    .addColumn('policy_decision_id', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bundles_by_decision').on('bundles').column('policy_decision_id').execute();
  if (dialect === 'postgres') await guardPostgresTable(db, BUNDLES_GUARD);
  else await guardSqliteTable(db, BUNDLES_GUARD, true);
}
