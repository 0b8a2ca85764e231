import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { encodeCursor, toPage, type PageRequest } from '../../routes/pagination.ts';
import type { EventEnvelope, UnsignedEventEnvelope } from './append-event.ts';
import { envelopesOf } from './derived-envelope.ts';
import { signEnvelope } from './sign-envelope.ts';

/**
 * A page of the feed. `next_cursor` is always the position reached (after the last event shown, or where the page
 * started when it is empty), so a consumer at the end keeps polling with it; `has_more` says whether another page
 * is already there.
 */
export interface EventsPage {
  items: EventEnvelope[];
  next_cursor: string;
  has_more: boolean;
}

/**
 * Events in commit-safe order for pull consumers. On PostgreSQL a transaction can take seq 7 and commit after the
 * one holding seq 8; a consumer that already moved its cursor past 8 would never see 7. So only events written by
 * transactions older than every still-running transaction are shown (the snapshot's xmin horizon): an event may
 * appear a moment late, never out of order. SQLite has one writer, so commit order is seq order.
 */
export async function listEvents(ctx: AppContext, page: PageRequest, eventType?: string): Promise<EventsPage> {
  let query = ctx.store.db
    .selectFrom('events')
    .select(['seq', 'event_id', 'subject_ref', 'envelope', 'operation_ref'])
    .where('seq', '>', page.afterSeq)
    .orderBy('seq')
    .limit(page.limit + 1);
  if (eventType) query = query.where('event_type', '=', eventType);
  if (ctx.store.dialect === 'postgres') {
    query = query.where(sql<boolean>`tx_id < pg_snapshot_xmin(pg_current_snapshot())`);
  }
  const rows = await query.execute();
  const shown = toPage(rows, page.limit, (row) => row);
  const unsigned: UnsignedEventEnvelope[] = await envelopesOf(ctx.store.db, shown.items);
  const last = shown.items.at(-1);
  return {
    items: await Promise.all(unsigned.map((e) => signEnvelope(ctx, e))),
    next_cursor: encodeCursor(last ? Number(last.seq) : page.afterSeq),
    has_more: shown.next_cursor !== null,
  };
}
