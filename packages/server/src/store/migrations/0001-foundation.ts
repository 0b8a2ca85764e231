import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';

/** Entities, card tokens, merchants, grants, credentials, the event outbox, idempotency and signing keys. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('entities'), dialect)
    .addColumn('entity_id', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('public_key_jwk', 'text')
    .addColumn('key_thumbprint', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('entities_type', sql`type in ('person', 'organisation', 'agent')`)
    .addCheckConstraint('entities_state', sql`state in ('active', 'suspended', 'tombstoned')`)
    .execute();

  await withSeq(db.schema.createTable('card_tokens'), dialect)
    .addColumn('card_token_id', 'text', (c) => c.notNull().unique())
    .addColumn('principal_entity_id', 'text', (c) => c.notNull().references('entities.entity_id'))
    .addColumn('network_token', 'text', (c) => c.notNull())
    .addColumn('network', 'text')
    .addColumn('last4', 'text')
    .addColumn('expires', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('card_tokens_state', sql`state in ('active', 'suspended')`)
    .execute();
  await db.schema.createIndex('card_tokens_principal').on('card_tokens').column('principal_entity_id').execute();

  await withSeq(db.schema.createTable('merchants'), dialect)
    .addColumn('merchant_id', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('jurisdiction', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('merchants_state', sql`state in ('active', 'suspended')`)
    .execute();

  await withSeq(db.schema.createTable('grants'), dialect)
    .addColumn('grant_id', 'text', (c) => c.notNull().unique())
    .addColumn('parent_grant_id', 'text', (c) => c.references('grants.grant_id'))
    .addColumn('root_grant_id', 'text', (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull())
    .addColumn('principal_entity_id', 'text', (c) => c.notNull().references('entities.entity_id'))
    .addColumn('actor_entity_id', 'text', (c) => c.notNull().references('entities.entity_id'))
    .addColumn('capability_id', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('delegator_signature', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addCheckConstraint('grants_state', sql`state in ('active', 'revoked')`)
    .execute();
  await db.schema
    .createIndex('grants_actor_principal')
    .on('grants')
    .columns(['actor_entity_id', 'principal_entity_id'])
    .execute();
  await db.schema.createIndex('grants_parent').on('grants').column('parent_grant_id').execute();
  await db.schema.createIndex('grants_root').on('grants').column('root_grant_id').execute();

  await withSeq(db.schema.createTable('api_tokens'), dialect)
    .addColumn('token_id', 'text', (c) => c.notNull().unique())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('principal_entity_id', 'text', (c) => c.references('entities.entity_id'))
    .addColumn('label', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addCheckConstraint('api_tokens_role', sql`role in ('admin', 'runtime', 'principal', 'auditor')`)
    .addCheckConstraint('api_tokens_principal_binding', sql`(role = 'principal') = (principal_entity_id is not null)`)
    .execute();

  let events = withSeq(db.schema.createTable('events'), dialect)
    .addColumn('event_id', 'text', (c) => c.notNull().unique())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('subject_ref', 'text', (c) => c.notNull())
    .addColumn('envelope', 'text', (c) => c.notNull());
  if (dialect === 'postgres') {
    // INVARIANT: readers only see events whose writing transaction is older than every transaction still running
    // (see store/events-horizon.ts), so a pull consumer never skips an event that commits late with a lower seq.
    events = events.addColumn('tx_id', sql`xid8`, (c) => c.notNull().defaultTo(sql`pg_current_xact_id()`));
  }
  await events.execute();
  await db.schema.createIndex('events_type').on('events').column('event_type').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['credential_id', 'idem_key'])
    .addCheckConstraint('idempotency_keys_state', sql`state in ('in_flight', 'done')`)
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('valid_from', 'text', (c) => c.notNull())
    .addColumn('valid_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
