/**
 * Queues first attempts: the events committed past an endpoint's cursor, in commit order (seq; on PostgreSQL only
 * up to the horizon of list-events, so an event that commits late with a lower seq is never skipped), filtered by
 * the endpoint's event types, become `pending` attempts due now; the cursor moves in the same transaction, and only
 * while this instance still holds the lease. Events are only read here, never written. The filter is the same as
 * event-type-filter.ts's `matchesEventTypes`, in SQL (test: webhook-fan-out).
 */
import { sql, type RawBuilder } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { eventTypesOf, type WebhookEndpointRow } from './endpoint-view.ts';

export const FAN_OUT_PAGE = 1_000;

export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** Returns how many events it passed (a full page means there may be more). */
export async function fanOutEvents(ctx: AppContext, endpoint: WebhookEndpointRow, owner: string): Promise<number> {
  const nowIso = ctx.clock.now().toISOString();
  // no loop: an endpoint is not told of its own exhausted deliveries (they would exhaust in turn)
  const wanted = sql<boolean>`${eventTypeCondition(eventTypesOf(endpoint))}
    and not (e.event_type = 'ns.webhook.delivery_exhausted' and e.subject_ref = ${endpoint.endpoint_id})`;
  const queued = sql`insert into webhook_attempts (endpoint_id, event_id, event_seq, event_type, attempt, status,
      replay, next_attempt_at, attempted_at, response_status, duration_ms, error, created_at)`;
  const row = sql`${endpoint.endpoint_id}, e.event_id, e.seq, e.event_type, 1, 'pending', 0, ${nowIso}, null, null,
      null, null, ${nowIso}`;
  return ctx.store.db.transaction().execute(async (trx) => {
    // the page and the attempts it queues are read and written by the database, set-based: no event row comes into
    // JavaScript. PostgreSQL: one statement, so the page and the insert see the same horizon; SQLite: one writer, so
    // two statements of one transaction see the same events.
    let page: { n: number | string; last: number | string | null } | undefined;
    if (ctx.store.dialect === 'postgres') {
      ({
        rows: [page],
      } = await sql<{ n: number | string; last: number | string | null }>`
        with e as (
          select seq, event_id, event_type, subject_ref from events
          where seq > ${endpoint.cursor_seq} and tx_id < pg_snapshot_xmin(pg_current_snapshot())
          order by seq limit ${FAN_OUT_PAGE}
        ),
        queued as (${queued} select ${row} from e where ${wanted} order by e.seq)
        select count(*) as n, max(seq) as last from e`.execute(trx));
    } else {
      ({
        rows: [page],
      } = await sql<{ n: number | string; last: number | string | null }>`
        select count(*) as n, max(seq) as last from (
          select seq from events where seq > ${endpoint.cursor_seq} order by seq limit ${FAN_OUT_PAGE})`.execute(trx));
      if (Number(page?.n ?? 0) > 0) {
        await sql`${queued} select ${row} from events e
          where e.seq > ${endpoint.cursor_seq} and e.seq <= ${Number(page!.last)} and ${wanted}
          order by e.seq`.execute(trx);
      }
    }
    const passed = Number(page?.n ?? 0);
    if (passed === 0) return 0;
    const last = Number(page!.last);
    const moved = await trx
      .updateTable('webhook_endpoints')
      .set({ cursor_seq: last })
      .where('endpoint_id', '=', endpoint.endpoint_id)
      .where('lease_owner', '=', owner)
      .where('cursor_seq', '=', endpoint.cursor_seq)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new LeaseLostError(`lost the lease on ${endpoint.endpoint_id}`);
    endpoint.cursor_seq = last;
    return passed;
  });
}

/** The endpoint's event filter (event-type-filter.ts) as SQL over `e.event_type`: exact types and `ns.<family>.*`. */
function eventTypeCondition(filter: readonly string[] | null): RawBuilder<boolean> {
  if (filter === null) return sql<boolean>`1 = 1`;
  const exact = filter.filter((f) => !f.endsWith('.*'));
  const families = filter.filter((f) => f.endsWith('.*')).map((f) => f.slice(0, -1));
  const any: RawBuilder<boolean>[] = [];
  if (exact.length > 0) any.push(sql<boolean>`e.event_type in (${sql.join(exact)})`);
  for (const prefix of families) {
    any.push(sql<boolean>`substr(e.event_type, 1, ${sql.lit(prefix.length)}) = ${prefix}`);
  }
  return any.length === 0 ? sql<boolean>`1 = 0` : sql<boolean>`(${sql.join(any, sql` or `)})`;
}
