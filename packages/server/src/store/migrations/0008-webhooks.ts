import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';

/**
 * Webhook delivery (CONTRACT section 9, docs/webhooks.md). The `events` table is the outbox and is never written
 * here; delivery state lives in two new tables.
 * - `webhook_endpoints`: one row per endpoint. `cursor_seq` is the last `events.seq` this endpoint has been fanned out
 *   through (first attempts queued); `lease_owner` / `lease_until` say which instance works the endpoint now (one at
 *   a time, so first attempts go out in commit order and no attempt is made twice). Shared secrets are stored as
 *   given (`whsec_…`): HMAC signing needs the key itself, so they cannot be hashed like API tokens. They are never
 *   logged and never returned after the response that created them.
 * - `webhook_attempts`: one row per attempt, the queue and the log at once. A `pending` row is an attempt to make;
 *   the worker settles it once (`succeeded`, `failed` with the time of the next try, or `exhausted`). These rows are
 *   operational records, not audit records: their state columns change, and an endpoint's rows go with it.
 * On PostgreSQL a trigger NOTIFYs `aar_events_<schema>` when events are written, so every instance's worker wakes
 * at the commit instead of at its next poll (the NOTIFY is sent by PostgreSQL at commit, never for a rollback).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('webhook_endpoints'), dialect)
    .addColumn('endpoint_id', 'text', (c) => c.notNull().unique())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('profile', 'text', (c) => c.notNull())
    // JSON array of exact types and `ns.<family>.*` patterns; null: every event
    .addColumn('event_types', 'text')
    .addColumn('description', 'text')
    .addColumn('connector_id', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text')
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'text')
    .addColumn('cursor_seq', 'bigint', (c) => c.notNull())
    .addColumn('failing_since', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('webhook_endpoints_profile', sql`profile in ('shared_secret', 'asymmetric', 'cose')`)
    .addCheckConstraint('webhook_endpoints_state', sql`state in ('enabled', 'disabled')`)
    .addCheckConstraint('webhook_endpoints_secret', sql`(profile = 'shared_secret') = (secret is not null)`)
    .execute();

  await withSeq(db.schema.createTable('webhook_attempts'), dialect)
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_seq', 'bigint', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // 1 when queued by a replay
    .addColumn('replay', 'integer', (c) => c.notNull().defaultTo(0))
    // pending: when it is due; failed: when the next attempt is due; otherwise null
    .addColumn('next_attempt_at', 'text')
    .addColumn('attempted_at', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint('webhook_attempts_status', sql`status in ('pending', 'succeeded', 'failed', 'exhausted')`)
    .execute();
  // the worker's question: which attempts of this endpoint are due, in commit order
  await db.schema
    .createIndex('webhook_attempts_due')
    .on('webhook_attempts')
    .columns(['endpoint_id', 'status', 'event_seq'])
    .execute();
  // the deliveries log, newest first
  await db.schema.createIndex('webhook_attempts_log').on('webhook_attempts').columns(['endpoint_id', 'seq']).execute();

  if (dialect === 'postgres') {
    await sql`create or replace function aar_notify_events() returns trigger language plpgsql as $$
      begin
        perform pg_notify('aar_events_' || current_schema(), '');
        return null;
      end $$`.execute(db);
    await sql`create trigger events_notify after insert on events
      for each statement execute function aar_notify_events()`.execute(db);
  }
}
