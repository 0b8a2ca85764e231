import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import {
  AUDIT_GUARDED,
  RECORD_GUARDED,
  createPostgresGuardFunction,
  guardPostgresTable,
  guardSqliteTable,
} from './write-once-guards.ts';

/**
 * Write-once means write-once (CONTRACT section 8), and one origin for the log.
 * - `store_meta`: facts fixed when the store is created, one row per key, write-once. `audit_origin` names the log
 *   in every checkpoint, whichever process or port signs it (audit/audit-origin.ts). A store that already has
 *   checkpoints adopts the origin of its latest one here, so the log keeps the name it was known by.
 * - The guards of write-once-guards.ts on decisions, approvals, events, event operations, grant revocations and
 *   store_meta; on SQLite also the REPLACE guard of the audit tables and evidence packs.
 * - `decisions_audit_ref`, `events_operation`: verification finds records by their entries
 *   (audit/record-checks/).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('store_meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  const latest = (
    await sql<{ document: string }>`select document from audit_checkpoints order by size desc limit 1`.execute(db)
  ).rows[0];
  const origin = latest ? originOf(latest.document) : undefined;
  if (origin !== undefined) {
    await sql`insert into store_meta (key, value, created_at)
      values ('audit_origin', ${origin}, ${new Date().toISOString()})`.execute(db);
  }

  await db.schema.createIndex('decisions_audit_ref').on('decisions').column('audit_ref').execute();
  // a revocation names its event by (operation, grant): partial, so the events of single changes cost nothing
  await db.schema
    .createIndex('events_operation')
    .on('events')
    .columns(['operation_ref', 'subject_ref'])
    .where(sql.ref('operation_ref'), 'is not', null)
    .execute();

  if (dialect === 'postgres') {
    await createPostgresGuardFunction(db);
    for (const guard of RECORD_GUARDED) await guardPostgresTable(db, guard);
  } else {
    for (const guard of AUDIT_GUARDED) await guardSqliteTable(db, guard, false);
    for (const guard of RECORD_GUARDED) await guardSqliteTable(db, guard, true);
  }
}

function originOf(document: string): string | undefined {
  try {
    const origin = (JSON.parse(document) as { origin?: unknown }).origin;
    return typeof origin === 'string' && origin.length > 0 ? origin : undefined;
  } catch {
    return undefined;
  }
}
