import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** Tables the database itself keeps write-once: no UPDATE, no DELETE (and on PostgreSQL no TRUNCATE). */
export const WRITE_ONCE_TABLES = ['audit_entries', 'audit_nodes', 'audit_checkpoints'] as const;

/**
 * The audit chain (CONTRACT section 8): entries are the leaves of an RFC 9162 Merkle tree and each names the leaf
 * hash of the one before it (a hash chain); `audit_nodes` keeps every perfect subtree hash so proofs need one
 * query; `audit_state` is the tip (size, last leaf hash, the compact-range frontier), the only mutable row.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('audit_entries')
    .addColumn('idx', 'bigint', (c) => c.primaryKey())
    .addColumn('audit_id', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_ref', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    // the exact leaf bytes (RFC 8785 JSON, UTF-8): leaf_hash = SHA-256(0x00 || entry)
    .addColumn('entry', 'text', (c) => c.notNull())
    .addColumn('leaf_hash', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_entries_subject').on('audit_entries').column('subject_ref').execute();

  await db.schema
    .createTable('audit_nodes')
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('idx', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_nodes_pk', ['level', 'idx'])
    .execute();

  await db.schema
    .createTable('audit_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('last_leaf_hash', 'text', (c) => c.notNull())
    .addColumn('frontier', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('audit_state' as never)
    .values({
      id: 1,
      size: 0,
      last_leaf_hash: '',
      frontier: JSON.stringify({ size: 0, hashes: [] }),
      updated_at: '1970-01-01T00:00:00.000Z',
    } as never)
    .execute();

  await db.schema
    .createTable('audit_checkpoints')
    .addColumn('size', 'bigint', (c) => c.primaryKey())
    .addColumn('root_hash', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .execute();

  // Per-subject salts for the commitments the chain holds instead of entity and card-token ids. Erasure deletes the
  // salt, which makes every commitment to that subject unlinkable while the chain itself stays intact and valid.
  await db.schema
    .createTable('subject_salts')
    .addColumn('subject_ref', 'text', (c) => c.primaryKey())
    .addColumn('salt', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  if (dialect === 'postgres') {
    await sql`create or replace function aar_refuse_change() returns trigger language plpgsql as $$
      begin raise exception 'aar: % is write-once: % refused', tg_table_name, tg_op using errcode = 'P0001'; end $$`.execute(
      db,
    );
    for (const table of WRITE_ONCE_TABLES) {
      await sql`create trigger ${sql.raw(`${table}_write_once`)} before update or delete on ${sql.table(table)} for each row execute function aar_refuse_change()`.execute(
        db,
      );
      await sql`create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)} for each statement execute function aar_refuse_change()`.execute(
        db,
      );
    }
  } else {
    for (const table of WRITE_ONCE_TABLES) {
      for (const op of ['update', 'delete']) {
        await sql`create trigger ${sql.raw(`${table}_no_${op}`)} before ${sql.raw(op)} on ${sql.table(table)}
          begin select raise(abort, ${sql.lit(`aar: ${table} is write-once: ${op} refused`)}); end`.execute(db);
      }
    }
  }
}
