import { sql, type Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';

/**
 * The newest event's seq, read inside the write queue's transaction: an endpoint that starts (or restarts) from here
 * receives exactly the events committed after it. INVARIANT: the queue holds the audit tip (FOR UPDATE on PostgreSQL)
 * for the batch, so no other instance's event is uncommitted below this maximum.
 */
export async function newestEventSeq(trx: Transaction<Database>): Promise<number> {
  const top = await trx
    .selectFrom('events')
    .select(sql<number | null>`max(seq)`.as('seq'))
    .executeTakeFirst();
  return Number(top?.seq ?? 0);
}
