/**
 * Queues first attempts: the events committed past an endpoint's cursor, in commit order (seq; on PostgreSQL only
 * up to the horizon of list-events, so an event that commits late with a lower seq is never skipped), filtered by
 * the endpoint's event types, become `pending` attempts due now; the cursor moves in the same transaction, and only
 * while this instance still holds the lease. Events are only read here, never written.
 */
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { eventTypesOf, type WebhookEndpointRow } from './endpoint-view.ts';
import { matchesEventTypes } from './event-type-filter.ts';

export const FAN_OUT_PAGE = 1_000;

export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** Returns how many events it passed (a full page means there may be more). */
export async function fanOutEvents(ctx: AppContext, endpoint: WebhookEndpointRow, owner: string): Promise<number> {
  const filter = eventTypesOf(endpoint);
  const nowIso = ctx.clock.now().toISOString();
  return ctx.store.db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom('events')
      .select(['seq', 'event_id', 'event_type', 'subject_ref'])
      .where('seq', '>', endpoint.cursor_seq)
      .orderBy('seq')
      .limit(FAN_OUT_PAGE);
    if (ctx.store.dialect === 'postgres') q = q.where(sql<boolean>`tx_id < pg_snapshot_xmin(pg_current_snapshot())`);
    const rows = await q.execute();
    if (rows.length === 0) return 0;
    const wanted = rows.filter(
      (e) =>
        matchesEventTypes(filter, e.event_type) &&
        // no loop: an endpoint is not told of its own exhausted deliveries (they would exhaust in turn)
        !(e.event_type === 'ns.webhook.delivery_exhausted' && e.subject_ref === endpoint.endpoint_id),
    );
    for (let i = 0; i < wanted.length; i += 500) {
      await trx
        .insertInto('webhook_attempts')
        .values(
          wanted.slice(i, i + 500).map((e) => ({
            endpoint_id: endpoint.endpoint_id,
            event_id: e.event_id,
            event_seq: Number(e.seq),
            event_type: e.event_type,
            attempt: 1,
            status: 'pending' as const,
            replay: 0,
            next_attempt_at: nowIso,
            attempted_at: null,
            response_status: null,
            duration_ms: null,
            error: null,
            created_at: nowIso,
          })),
        )
        .execute();
    }
    const last = Number(rows[rows.length - 1]!.seq);
    const moved = await trx
      .updateTable('webhook_endpoints')
      .set({ cursor_seq: last })
      .where('endpoint_id', '=', endpoint.endpoint_id)
      .where('lease_owner', '=', owner)
      .where('cursor_seq', '=', endpoint.cursor_seq)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new LeaseLostError(`lost the lease on ${endpoint.endpoint_id}`);
    endpoint.cursor_seq = last;
    return rows.length;
  });
}
