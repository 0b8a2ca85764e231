import type { Selectable } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { decodeCursor, encodeCursor, type Page } from '../../routes/pagination.ts';
import type { WebhookAttemptsTable } from '../../store/schema.ts';
import { readEndpoint } from './read-endpoint.ts';

export interface DeliveryAttemptView {
  event_id: string;
  event_type: string;
  attempt: number;
  status: Selectable<WebhookAttemptsTable>['status'];
  response_status: number | null;
  duration_ms: number | null;
  /** pending: when it is due; failed: when the next attempt is due */
  next_attempt_at: string | null;
  attempted_at: string | null;
  /** why it failed without an HTTP status (timeout, connection refused, target refused by the SSRF guard) */
  error: string | null;
  /** queued by a replay */
  replay: boolean;
}

/** The attempts log of one endpoint, newest first (cursor: the last row's seq; pages go back in time). */
export async function listDeliveries(
  ctx: AppContext,
  endpointId: string,
  query: { limit: number; cursor?: string | undefined; status?: string | undefined },
): Promise<Page<DeliveryAttemptView>> {
  await readEndpoint(ctx.store.db, endpointId);
  const before = query.cursor ? decodeCursor(query.cursor) : undefined;
  let q = ctx.store.db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('seq', 'desc')
    .limit(query.limit + 1);
  if (before !== undefined) q = q.where('seq', '<', before);
  if (query.status !== undefined) q = q.where('status', '=', query.status as DeliveryAttemptView['status']);
  const rows = await q.execute();
  const shown = rows.slice(0, query.limit);
  const last = shown[shown.length - 1];
  return {
    items: shown.map((r) => ({
      event_id: r.event_id,
      event_type: r.event_type,
      attempt: r.attempt,
      status: r.status,
      response_status: r.response_status,
      duration_ms: r.duration_ms,
      next_attempt_at: r.next_attempt_at,
      attempted_at: r.attempted_at,
      error: r.error,
      replay: r.replay === 1,
    })),
    next_cursor: rows.length > query.limit && last ? encodeCursor(last.seq) : null,
  };
}
