import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { CONFORMANCE_RUNS_GUARD, guardSqliteTable } from './write-once-guards.ts';

/**
 * What conformance-kit runs created (issue 26): one row per resource a run made (entity, grant, listing, webhook
 * endpoint, card token, merchant, credential), by its run, so that the default lists, marketplace search and the
 * trust scores leave it out and the run retires it at its end (`retired_at`). A display and clean-up marker only: it
 * changes no decision, so it is outside the audit chain (docs/conformance.md, "What a run leaves behind").
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('conformance_artifacts'), dialect)
    // the run: `ns:conformance_report:<uuid>`, the id of the report the run produces
    .addColumn('run_id', 'text', (c) => c.notNull())
    // entity | grant | listing | webhook_endpoint | card_token | merchant | token
    .addColumn('kind', 'text', (c) => c.notNull())
    // the resource's id (ids of different kinds never collide: each kind has its own prefix)
    .addColumn('ref', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
  // who signed a stored report: `self` (a self-run, signed by this service) or `publisher` (brought by a marketplace
  // listing, signed by its publisher's registered key; evidence about the publisher's deployment, not this one)
  await db.schema
    .alterTable('conformance_runs')
    .addColumn('origin', 'text', (c) => c.notNull().defaultTo('self'))
    .execute();
  // SQLite's update guard lists the columns it compares: made again so `origin` is one of them (PostgreSQL's compares
  // whole rows)
  if (dialect === 'sqlite') await guardSqliteTable(db, CONFORMANCE_RUNS_GUARD, true);
  await db.schema.createIndex('conformance_artifacts_by_run').on('conformance_artifacts').columns(['run_id']).execute();
}
