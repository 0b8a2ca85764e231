import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/**
 * Delegation and revocation (CONTRACT section 5).
 * - `grant_revocations`: one narrow row per revoked grant. A cascade over a 100k-grant subtree writes 100k of these
 *   (about 100 bytes each) instead of rewriting 100k wide grant rows (signed link and scope, over 1 KB each): that
 *   is what brings the cascade near a second on the embedded default. A grant is revoked when it has a row here
 *   (or, for rows written before this table, `grants.state = 'revoked'`); services/grants/grant-rows.ts reads both.
 * - `delegation_nonces`: a delegator's signed statement is accepted once (its nonce), so a consent cannot be
 *   replayed to re-create a revoked delegation.
 * - `grant_version`: a counter every change of a grant bumps in the changing transaction (triggers on `grants`; the
 *   revocation cascade bumps it itself, once). Instances cache grant chains and compare this one row before using
 *   them; on PostgreSQL the bump also NOTIFYs `aar_grants_<schema>` so the others drop their caches at once.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  let revocations = db.schema
    .createTable('grant_revocations')
    .addColumn('grant_id', 'text', (c) => c.primaryKey())
    .addColumn('revoked_at', 'text', (c) => c.notNull())
    // the audit entry of the revocation operation that revoked it (one per cascade)
    .addColumn('operation_ref', 'text', (c) => c.notNull())
    // the grant the revoke was called on: this one, or the ancestor whose cascade reached it
    .addColumn('cascade_root', 'text', (c) => c.notNull());
  if (dialect === 'sqlite') revocations = revocations.modifyEnd(sql`without rowid`);
  await revocations.execute();

  // The cascade walks parent -> children through this index alone (it covers every column the walk reads), never
  // touching the wide grant rows.
  await db.schema
    .createIndex('grants_subtree')
    .on('grants')
    .columns(['parent_grant_id', 'grant_id', 'state', 'principal_entity_id', 'actor_entity_id', 'capability_id'])
    .execute();

  await db.schema
    .createTable('delegation_nonces')
    .addColumn('delegator_entity_id', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('delegation_nonces_pk', ['delegator_entity_id', 'nonce'])
    .execute();

  await db.schema
    .createTable('grant_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db
    .insertInto('grant_version' as never)
    .values({ id: 1, version: 0 } as never)
    .execute();

  if (dialect === 'postgres') {
    await sql`create or replace function aar_bump_grant_version() returns trigger language plpgsql as $$
      declare v bigint;
      begin
        update grant_version set version = version + 1 where id = 1 returning version into v;
        perform pg_notify('aar_grants_' || current_schema(), v::text);
        return null;
      end $$`.execute(db);
    await sql`create trigger grants_bump_version after insert or update or delete on grants
      for each statement execute function aar_bump_grant_version()`.execute(db);
  } else {
    for (const op of ['insert', 'update', 'delete']) {
      await sql`create trigger ${sql.raw(`grants_bump_version_${op}`)} after ${sql.raw(op)} on grants
        begin update grant_version set version = version + 1 where id = 1; end`.execute(db);
    }
  }
}
