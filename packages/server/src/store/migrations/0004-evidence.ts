import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** Tables of this migration the database keeps write-once, like the audit tables of 0003. */
export const WRITE_ONCE_EVIDENCE_TABLES = ['evidence_packs'] as const;

/**
 * Evidence packs (CONTRACT sections 3 and 8): a pack is assembled and signed once, on first request, then stored
 * write-once so every later request gets the same bytes. And an index from a pack id to its decision: a decision's
 * `evidence_refs` holds exactly one pack id (JSON text `["ns:evidence-pack:<uuid>"]`), indexed by expression so
 * decisions recorded before this migration are found too.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('evidence_packs')
    .addColumn('evidence_pack_id', 'text', (c) => c.primaryKey())
    .addColumn('policy_decision_id', 'text', (c) => c.notNull().unique())
    // the signed pack, exactly as served: RFC 8785 JSON
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  if (dialect === 'postgres') {
    await sql`create index decisions_evidence_ref on decisions (((evidence_refs::jsonb) ->> 0))`.execute(db);
    // aar_refuse_change() comes from 0003
    for (const table of WRITE_ONCE_EVIDENCE_TABLES) {
      await sql`create trigger ${sql.raw(`${table}_write_once`)} before update or delete on ${sql.table(table)} for each row execute function aar_refuse_change()`.execute(
        db,
      );
      await sql`create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)} for each statement execute function aar_refuse_change()`.execute(
        db,
      );
    }
  } else {
    await sql`create index decisions_evidence_ref on decisions (json_extract(evidence_refs, '$[0]'))`.execute(db);
    for (const table of WRITE_ONCE_EVIDENCE_TABLES) {
      for (const op of ['update', 'delete']) {
        await sql`create trigger ${sql.raw(`${table}_no_${op}`)} before ${sql.raw(op)} on ${sql.table(table)}
          begin select raise(abort, ${sql.lit(`aar: ${table} is write-once: ${op} refused`)}); end`.execute(db);
      }
    }
  }
}
