import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import {
  AUDIT_VERIFICATIONS_GUARD,
  DECISIONS_GUARD,
  guardPostgresTable,
  guardSqliteTable,
} from './write-once-guards.ts';

/**
 * Leaner decisions, and remembered verifications (issue 10).
 * - `decisions.record`: the decision record's RFC 8785 bytes (exactly what its audit entry's `record_digest`
 *   hashes), compressed (services/decisions/record-codec.ts). A row with a `record` stores `request`, `snapshot`,
 *   `result` and `decision_map` as empty strings and `reservation` as null: every one of them is in the record, so
 *   each fact is stored once. Rows written before keep their four JSON columns and no `record`; readers take both
 *   shapes (services/decisions/stored-decision.ts), so nothing is rewritten and nothing a pack or a map re-serves
 *   changes.
 * - `audit_verifications`: one signed mark per completed `GET /v1/audit/verify` that found the log valid ("verified
 *   through size N, root R, against checkpoint C"), write-once, so the next run can start from it
 *   (audit/verify/verified-marks.ts).
 * SQLite's update guard lists the columns it compares, so the decisions guard is made again with `record` in it;
 * PostgreSQL's compares whole rows and covers the new column as it is.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('decisions')
    .addColumn('record', dialect === 'postgres' ? 'bytea' : 'blob')
    .execute();

  await db.schema
    .createTable('audit_verifications')
    .addColumn('size', 'bigint', (c) => c.primaryKey())
    .addColumn('root_hash', 'text', (c) => c.notNull())
    // the signed `ns.audit_verification.v1` (JSON)
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  if (dialect === 'postgres') {
    await guardPostgresTable(db, AUDIT_VERIFICATIONS_GUARD);
  } else {
    await guardSqliteTable(db, DECISIONS_GUARD, true);
    await guardSqliteTable(db, AUDIT_VERIFICATIONS_GUARD, true);
  }
}
