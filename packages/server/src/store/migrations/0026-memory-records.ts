import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { guardPostgresTable, guardSqliteTable, type GuardedTable } from './write-once-guards.ts';

/**
 * Governed agent memory (CONTRACT section 22, issue 30; services/memory, docs/memory.md).
 * - `memory_records`: one row per signed record (`ns:memory_record:<uuid>`): the signed document (`record`, RFC 8785
 *   text) and the columns readers filter on. Write-once but for `state` and `tombstone_id`, which move once, together,
 *   from `active`/null to `erased` or `purged` and the tombstone's id.
 * - `memory_contents`: the content of an active record and its salt. NOT guarded: erasure and the retention purge
 *   delete the row (that is the point). Its integrity is the record's `content_digest` (a changed row reads as
 *   tampered, never as content).
 * - `memory_tombstones`: per principal a hash chain of signed tombstones (`sequence` 1, 2, ...; each names the digest of
 *   the one before): fully write-once; (principal, sequence) unique, so two writers cannot fork the chain.
 * Attacker assumption for the guards: SQL write access without the service key (write-once-guards.ts).
 */
export const MEMORY_RECORDS_GUARD: GuardedTable = {
  table: 'memory_records',
  uniqueKeys: [['memory_record_id'], ['tombstone_id']],
  stateColumns: ['state', 'tombstone_id'],
  sqliteTransition: `((new.state is old.state and new.tombstone_id is old.tombstone_id)
    or (old.state = 'active' and new.state in ('erased', 'purged') and old.tombstone_id is null
      and new.tombstone_id is not null))`,
};

export const MEMORY_TOMBSTONES_GUARD: GuardedTable = {
  table: 'memory_tombstones',
  uniqueKeys: [['tombstone_id'], ['memory_record_id'], ['principal_entity_id', 'sequence']],
  stateColumns: [],
};

export const MEMORY_GUARDS: readonly GuardedTable[] = [MEMORY_RECORDS_GUARD, MEMORY_TOMBSTONES_GUARD];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('memory_records'), dialect)
    .addColumn('memory_record_id', 'text', (c) => c.notNull().unique())
    .addColumn('principal_entity_id', 'text', (c) => c.notNull())
    .addColumn('agent_entity_id', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('classification', 'text', (c) => c.notNull())
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('record_digest', 'text', (c) => c.notNull())
    .addColumn('content_digest', 'text', (c) => c.notNull())
    .addColumn('retain_until', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('tombstone_id', 'text', (c) => c.unique())
    .addCheckConstraint(
      'memory_records_classification',
      sql`classification in ('public', 'internal', 'confidential', 'restricted')`,
    )
    .addCheckConstraint('memory_records_state', sql`state in ('active', 'erased', 'purged')`)
    .addCheckConstraint('memory_records_tombstone', sql`(state = 'active') = (tombstone_id is null)`)
    .execute();
  await db.schema
    .createIndex('memory_records_principal')
    .on('memory_records')
    .columns(['principal_entity_id', 'seq'])
    .execute();
  // the retention worker's scan: active records by the end of their retention
  await db.schema.createIndex('memory_records_due').on('memory_records').columns(['state', 'retain_until']).execute();

  await db.schema
    .createTable('memory_contents')
    .addColumn('memory_record_id', 'text', (c) => c.primaryKey())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('salt', 'text', (c) => c.notNull())
    .execute();

  await withSeq(db.schema.createTable('memory_tombstones'), dialect)
    .addColumn('tombstone_id', 'text', (c) => c.notNull().unique())
    .addColumn('memory_record_id', 'text', (c) => c.notNull().unique())
    .addColumn('principal_entity_id', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('previous_tombstone_digest', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('tombstone', 'text', (c) => c.notNull())
    .addColumn('tombstone_digest', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('memory_tombstones_chain', ['principal_entity_id', 'sequence'])
    .addCheckConstraint('memory_tombstones_reason', sql`reason in ('erased', 'retention_expired')`)
    .addCheckConstraint(
      'memory_tombstones_first',
      sql`(sequence = 1) = (previous_tombstone_digest is null) and sequence >= 1`,
    )
    .execute();

  if (dialect === 'postgres') {
    await guardPostgresTable(db, MEMORY_RECORDS_GUARD);
    await guardPostgresTable(db, MEMORY_TOMBSTONES_GUARD);
    // aar_guard_update() compares every column but the state columns; this one holds them to their one transition
    await sql`create or replace function aar_memory_records_once() returns trigger language plpgsql as $$
      begin
        if (new.state is distinct from old.state or new.tombstone_id is distinct from old.tombstone_id)
          and not (old.state = 'active' and new.state in ('erased', 'purged') and old.tombstone_id is null
            and new.tombstone_id is not null) then
          raise exception 'aar: memory_records is write-once: state moves once from active' using errcode = 'P0001';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger memory_records_once before update on memory_records
      for each row execute function aar_memory_records_once()`.execute(db);
  } else {
    await guardSqliteTable(db, MEMORY_RECORDS_GUARD, true);
    await guardSqliteTable(db, MEMORY_TOMBSTONES_GUARD, true);
  }
}
