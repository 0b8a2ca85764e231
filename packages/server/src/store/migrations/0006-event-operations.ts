import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/**
 * Events of one bulk operation (a revocation cascade: one `ns.authority.revoked` per grant) share everything but
 * their id and subject. Such an event row stores no envelope text (`envelope` is empty) and names its operation; the
 * operation's common members are stored once in `event_operations`, and readers rebuild the identical envelope
 * (services/events/derived-envelope.ts). A 100k-grant cascade then writes ~100 bytes per event instead of ~600.
 * Also the covering index of whole-tree revocations.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('events').addColumn('operation_ref', 'text').execute();
  await db.schema
    .createTable('event_operations')
    .addColumn('operation_ref', 'text', (c) => c.primaryKey())
    // the members every event of the operation shares (JSON); per event: event_id, subject_ref, and what the
    // subject's immutable grant row gives (principal_entity_id, capability_id)
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // Revoking a root grant takes its whole tree: one range of this index, covering what the cascade reads, instead of
  // a recursive walk (services/grants/write-revocation-cascade.ts).
  await db.schema
    .createIndex('grants_tree')
    .on('grants')
    .columns(['root_grant_id', 'grant_id', 'state', 'principal_entity_id', 'capability_id'])
    .execute();
}
