import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { guardPostgresTable, guardSqliteTable, type GuardedTable } from './write-once-guards.ts';

/**
 * Agent metadata attestations (issue 30, services/agent-metadata): each `ns.agent_metadata_attestation.v1` an agent
 * signed with its own registered key and the service accepted, one row per document, write-once. The latest row of an
 * agent (`created_at`, then `attestation_id`: UUIDv7, time-ordered) is its current metadata; authorize puts it into
 * every decision's snapshot (aar-decide/1.5.0). `document` is the RFC 8785 text of the signed document exactly as
 * accepted, `digest` its `sha-256:` digest (unique: a document is accepted once), `public_key_jwk` the agent key it
 * verified against at acceptance (the key offline verifiers get in the snapshot), `audit_id` the audit entry of its
 * `ns.entity.metadata_attested` event.
 * Authorize caches the current row per agent beside the other facts (grant-cache.ts): an insert moves the grant
 * version in the inserting transaction (as migration 0009 does for entities), so an attestation committed before an
 * authorize began is always seen.
 * Attacker assumption for the guards: SQL write access without the service key (write-once-guards.ts); a row
 * inserted by SQL has no agent signature that verifies, and authorize checks the signature again before use.
 */
export const AGENT_METADATA_GUARD: GuardedTable = {
  table: 'agent_metadata_attestations',
  uniqueKeys: [['attestation_id'], ['digest'], ['audit_id']],
  stateColumns: [],
};

export const AGENT_METADATA_GUARDS: readonly GuardedTable[] = [AGENT_METADATA_GUARD];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('agent_metadata_attestations')
    .addColumn('attestation_id', 'text', (c) => c.primaryKey())
    .addColumn('agent_entity_id', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('software_version', 'text', (c) => c.notNull())
    .addColumn('operator', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'text', (c) => c.notNull())
    .addColumn('public_key_jwk', 'text', (c) => c.notNull())
    .addColumn('audit_id', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agent_metadata_attestations_latest')
    .on('agent_metadata_attestations')
    .columns(['agent_entity_id', 'created_at', 'attestation_id'])
    .execute();

  if (dialect === 'postgres') {
    await guardPostgresTable(db, AGENT_METADATA_GUARD);
    await sql`create trigger agent_metadata_attestations_bump_version after insert on agent_metadata_attestations
      for each statement execute function aar_bump_grant_version()`.execute(db);
  } else {
    await guardSqliteTable(db, AGENT_METADATA_GUARD, true);
    await sql`create trigger agent_metadata_attestations_bump_version_insert after insert on agent_metadata_attestations
      begin update grant_version set version = version + 1 where id = 1; end`.execute(db);
  }
}
