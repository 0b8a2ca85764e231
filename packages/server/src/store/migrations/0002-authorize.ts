import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';

/** Decisions, the daily spend ledger, approvals, risk states and the request-nonce memory. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('decisions'), dialect)
    .addColumn('policy_decision_id', 'text', (c) => c.notNull().unique())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('actor_entity_id', 'text', (c) => c.notNull())
    .addColumn('principal_entity_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('leaf_grant_id', 'text')
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('decision_map_id', 'text', (c) => c.notNull().unique())
    .addColumn('decision_map', 'text', (c) => c.notNull())
    .addColumn('audit_ref', 'text', (c) => c.notNull())
    .addColumn('evidence_refs', 'text', (c) => c.notNull())
    .addColumn('approval_id', 'text')
    .addColumn('reservation', 'text')
    .addColumn('spend_day', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('engine_version', 'text', (c) => c.notNull())
    .addColumn('now', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('decisions_decision', sql`decision in ('allow_with_constraints', 'require_approval', 'deny')`)
    .addCheckConstraint('decisions_outcome', sql`outcome in ('none', 'reserved', 'executed', 'failed', 'refunded')`)
    .execute();
  await db.schema.createIndex('decisions_actor').on('decisions').columns(['actor_entity_id', 'seq']).execute();
  await db.schema.createIndex('decisions_principal').on('decisions').columns(['principal_entity_id', 'seq']).execute();

  // INVARIANT: reserved_minor is the sum of the live reservations of allowed `execute` decisions on this grant and
  // its subtree for that UTC day; it only changes under the row's lock, in the transaction that records the decision.
  await db.schema
    .createTable('spend_counters')
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('reserved_minor', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('spend_counters_pk', ['grant_id', 'day'])
    .addCheckConstraint('spend_counters_non_negative', sql`reserved_minor >= 0`)
    .execute();

  await withSeq(db.schema.createTable('approvals'), dialect)
    .addColumn('approval_id', 'text', (c) => c.notNull().unique())
    .addColumn('policy_decision_id', 'text', (c) => c.notNull().unique())
    .addColumn('principal_entity_id', 'text', (c) => c.notNull())
    .addColumn('actor_entity_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('bound', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('sca_reference', 'text')
    .addColumn('consumed_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('approvals_status', sql`status in ('pending', 'approved', 'rejected', 'expired', 'consumed')`)
    .execute();
  await db.schema
    .createIndex('approvals_principal')
    .on('approvals')
    .columns(['principal_entity_id', 'status'])
    .execute();

  await db.schema
    .createTable('risk_states')
    .addColumn('entity_id', 'text', (c) => c.primaryKey())
    .addColumn('risk_state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('risk_states_state', sql`risk_state in ('normal', 'elevated', 'blocked')`)
    .execute();

  // A nonce is accepted once per key, durably and across instances: the primary key decides a race.
  await db.schema
    .createTable('request_nonces')
    .addColumn('keyid', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_nonces_pk', ['keyid', 'nonce'])
    .execute();
  await db.schema.createIndex('request_nonces_expiry').on('request_nonces').column('expires_at').execute();
}
