/**
 * The retention purge: every active record whose `retain_until` has passed (by ctx.clock) loses its content and gets
 * a signed, chained tombstone (`reason: retention_expired`) and `ns.memory.purged` with its audit entry, one record
 * per write-queue unit (a failure leaves the others done and this one untouched). Bounded per call (`limit`); the
 * worker (workers/memory-retention-worker.ts) calls it until nothing is due.
 * Several instances may run it at once: each unit re-reads the record as `active` inside the unit, so a record is
 * tombstoned once; the loser of a race on the same principal's chain fails on the (principal, sequence) key and
 * the record is simply picked up again next time.
 */
import type { AppContext } from '../../app-context.ts';
import { appendEvent } from '../events/append-event.ts';
import { appendTombstone } from './tombstone-chain.ts';
import { tombstoneEventData } from './tombstone-event.ts';

export const PURGE_BATCH = 100;

/** Purges up to `limit` due records; returns their ids. */
export async function purgeExpiredMemory(ctx: AppContext, limit = PURGE_BATCH): Promise<string[]> {
  const now = ctx.clock.now().toISOString();
  const due = await ctx.store.db
    .selectFrom('memory_records')
    .select('memory_record_id')
    .where('state', '=', 'active')
    .where('retain_until', '<=', now)
    .orderBy('retain_until')
    .limit(limit)
    .execute();
  const purged: string[] = [];
  for (const { memory_record_id: id } of due) {
    const done = await ctx.writer.run(async (trx) => {
      const row = await trx
        .selectFrom('memory_records')
        .selectAll()
        .where('memory_record_id', '=', id)
        .where('state', '=', 'active')
        .executeTakeFirst();
      if (!row || row.retain_until > ctx.clock.now().toISOString()) return false;
      const tombstone = await appendTombstone(trx, ctx, row, 'retention_expired');
      await appendEvent(trx, ctx, {
        event_type: 'ns.memory.purged',
        actor_entity_id: null,
        principal_entity_id: row.principal_entity_id,
        subject_ref: id,
        reason_code: 'memory_retention_expired',
        data: tombstoneEventData(row, tombstone),
      });
      return true;
    });
    if (done) purged.push(id);
  }
  return purged;
}
