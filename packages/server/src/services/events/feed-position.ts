/**
 * Where a pull consumer of GET /v1/events resumes (`after`): the opaque `next_cursor` of an earlier page, or the
 * `event_id` of the last event it processed (`ns:event:<uuid>`, from the feed or from a webhook delivery), so a
 * consumer that kept only event ids never has to start over.
 * Attacker assumption: `after` is caller-controlled; it is parsed strictly and only ever bound as a parameter.
 * INVARIANT: an event id resolves to its own `seq` only when the feed already shows that event (on PostgreSQL: its
 * transaction is older than every running one); resuming after an event the feed does not show yet could skip an
 * event committed late with a lower seq, so that is a 409 to retry, never a silent skip.
 */
import { AarError, fieldError, parseMintedId } from '@aar/core';
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { decodeCursor } from '../../routes/pagination.ts';

export const AFTER_PATH = '/query/after';
const EVENT_ID_PREFIX = 'ns:event:';

/** The seq after which the page starts: 0 for the beginning of the feed. */
export async function resolveFeedPosition(ctx: AppContext, after: string | undefined): Promise<number> {
  if (after === undefined || after === '') return 0;
  if (!after.startsWith(EVENT_ID_PREFIX)) return decodeCursor(after, AFTER_PATH);
  const eventId = parseMintedId('event', after, AFTER_PATH);
  let query = ctx.store.db.selectFrom('events').select(['seq']).where('event_id', '=', eventId);
  if (ctx.store.dialect === 'postgres') {
    query = query.select(sql<boolean>`tx_id < pg_snapshot_xmin(pg_current_snapshot())`.as('visible'));
  }
  const row = (await query.executeTakeFirst()) as { seq: number | string; visible?: boolean } | undefined;
  if (!row) throw fieldError('invalid_request', AFTER_PATH, 'names no event of this feed');
  if (row.visible === false) {
    throw new AarError('conflict', `event \`${eventId}\` is not in the feed yet; retry in a moment`, {
      errors: [{ path: AFTER_PATH, message: 'is not in the feed yet' }],
    });
  }
  return Number(row.seq);
}
