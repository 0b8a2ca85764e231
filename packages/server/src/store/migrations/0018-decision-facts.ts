import { sql, type Kysely } from 'kysely';
import { decodeDecisionRecord } from '../../services/decisions/record-codec.ts';
import type { Dialect } from '../dialect.ts';
import { DECISIONS_GUARD, guardSqliteTable } from './write-once-guards.ts';

/**
 * The facts rules read (CONTRACT section 19, issue 27).
 * - `decisions.merchant_id`, `amount_minor`, `currency`: the request's merchant and amount, restated from the decision
 *   record (the record checker compares them with it, audit/record-checks/check-decisions.ts) so the counters of
 *   services/authorize/purchase-counters.ts are an index read, not a decode of every record. Filled here for the rows
 *   written before (from their record, or from the `request` column of rows older than 0010): a counter window that
 *   spans the upgrade counts every purchase in it.
 * - Partial indexes over allowed `execute` decisions only (what the counters count): the principal's by time (covering
 *   what the counters sum), the actor's by time, the principal's by merchant (first purchase at a merchant).
 * - `entities.time_zone`: the IANA zone `facts.local_time` is computed in (null: UTC), restated by the entity's
 *   `ns.entity.created` event (checked by check-entities.ts and by authorize's chained-entity.ts).
 * SQLite's update guard lists the columns it compares, so the decisions guard is made again with the new columns in it
 * (after the fill, which the old guard lets through since it does not know them); PostgreSQL's compares whole rows,
 * so its guard is set aside for the fill, inside this migration's transaction.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('decisions').addColumn('merchant_id', 'text').execute();
  await db.schema.alterTable('decisions').addColumn('amount_minor', 'bigint').execute();
  await db.schema.alterTable('decisions').addColumn('currency', 'text').execute();
  await db.schema.alterTable('entities').addColumn('time_zone', 'text').execute();

  if (dialect === 'postgres') await sql`alter table decisions disable trigger decisions_guard_update`.execute(db);
  await fillDecisionFacts(db);
  if (dialect === 'postgres') await sql`alter table decisions enable trigger decisions_guard_update`.execute(db);
  else await guardSqliteTable(db, DECISIONS_GUARD, true);

  const purchases = sql<boolean>`decision = 'allow_with_constraints' and action = 'execute'`;
  await db.schema
    .createIndex('decisions_principal_purchases')
    .on('decisions')
    .columns(['principal_entity_id', 'now', 'actor_entity_id', 'currency', 'amount_minor', 'outcome'])
    .where(purchases)
    .execute();
  await db.schema
    .createIndex('decisions_actor_purchases')
    .on('decisions')
    .columns(['actor_entity_id', 'now', 'outcome'])
    .where(purchases)
    .execute();
  await db.schema
    .createIndex('decisions_principal_merchant')
    .on('decisions')
    .columns(['principal_entity_id', 'merchant_id', 'outcome'])
    .where(purchases)
    .execute();
}

const PAGE = 500;

/** every decision's merchant and amount, from its request, a page at a time (O(page) memory) */
async function fillDecisionFacts(db: Kysely<unknown>): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = (
      await sql<{ seq: number | string; request: string; record: Uint8Array | null }>`
        select seq, request, record from decisions where seq > ${after} order by seq limit ${PAGE}`.execute(db)
    ).rows;
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    for (const row of rows) {
      const request = requestOf(row);
      const amount = request?.amount as { minor?: unknown; currency?: unknown } | undefined;
      const merchant = typeof request?.merchant_id === 'string' ? request.merchant_id : null;
      const minor = typeof amount?.minor === 'number' ? amount.minor : null;
      const currency = typeof amount?.currency === 'string' ? amount.currency : null;
      if (merchant === null && minor === null && currency === null) continue;
      await sql`update decisions set merchant_id = ${merchant}, amount_minor = ${minor}, currency = ${currency}
        where seq = ${row.seq}`.execute(db);
    }
  }
}

/** a row's request; undefined when it cannot be read (verify reports such a row; the fill leaves it null) */
function requestOf(row: { request: string; record: Uint8Array | null }): Record<string, unknown> | undefined {
  try {
    const text = row.record === null ? row.request : decodeDecisionRecord(row.record);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    return (row.record === null ? parsed : parsed.request) as Record<string, unknown> | undefined;
  } catch {
    return undefined;
  }
}
