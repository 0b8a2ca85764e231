import { fieldError } from '@aar/core';
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { eventTypesOf } from './endpoint-view.ts';
import { matchesEventTypes, parseEventTypeFilter } from './event-type-filter.ts';
import { readEndpoint } from './read-endpoint.ts';

/** the most events one replay may queue; narrow the range for more */
export const MAX_REPLAY_EVENTS = 100_000;
const PAGE = 5_000;

export interface ReplayInput {
  since: string;
  until?: string | undefined;
  event_types?: string[] | undefined;
}

export interface ReplayResult {
  endpoint_id: string;
  queued: number;
  since: string;
  until: string;
}

/**
 * Queues again, for this endpoint, every committed event with `since <= occurred_at < until` (default now) that
 * passes the endpoint's filter and the request's `event_types`: new attempt rows, due now, same `webhook-id`
 * (= event_id), in commit order. All or nothing: more than MAX_REPLAY_EVENTS queues none. Works on a disabled
 * endpoint too (delivered once it is enabled). Operational rows only: a replay is not a state change of the service
 * and writes no event. Cost: one pass over the events table by seq (occurred_at is not indexed, to keep event
 * writes cheap).
 */
export async function replayEvents(ctx: AppContext, endpointId: string, input: ReplayInput): Promise<ReplayResult> {
  const now = ctx.clock.now();
  const since = timestamp(input.since, '/since');
  const until = input.until === undefined ? now.toISOString() : timestamp(input.until, '/until');
  if (until <= since) throw fieldError('invalid_request', '/until', 'must be after `since`');
  const requested = input.event_types === undefined ? null : parseEventTypeFilter(input.event_types, '/event_types');
  const endpoint = await readEndpoint(ctx.store.db, endpointId);
  const filter = eventTypesOf(endpoint);

  const picked: Array<{ seq: number; event_id: string; event_type: string }> = [];
  for (let after = 0; ;) {
    let q = ctx.store.db
      .selectFrom('events')
      .select(['seq', 'event_id', 'event_type', 'occurred_at'])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(PAGE);
    if (ctx.store.dialect === 'postgres') q = q.where(sql<boolean>`tx_id < pg_snapshot_xmin(pg_current_snapshot())`);
    const rows = await q.execute();
    for (const r of rows) {
      if (r.occurred_at < since || r.occurred_at >= until) continue;
      if (!matchesEventTypes(filter, r.event_type) || !matchesEventTypes(requested, r.event_type)) continue;
      picked.push({ seq: r.seq, event_id: r.event_id, event_type: r.event_type });
      if (picked.length > MAX_REPLAY_EVENTS) {
        throw fieldError(
          'invalid_request',
          '/since',
          `the range holds more than ${MAX_REPLAY_EVENTS} events: narrow it`,
        );
      }
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.seq;
  }
  const nowIso = now.toISOString();
  await ctx.store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < picked.length; i += 500) {
      await trx
        .insertInto('webhook_attempts')
        .values(
          picked.slice(i, i + 500).map((e) => ({
            endpoint_id: endpointId,
            event_id: e.event_id,
            event_seq: e.seq,
            event_type: e.event_type,
            attempt: 1,
            status: 'pending' as const,
            replay: 1,
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
  });
  return { endpoint_id: endpointId, queued: picked.length, since, until };
}

function timestamp(value: string, path: string): string {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms)) {
    throw fieldError('invalid_request', path, 'must be an RFC 3339 timestamp');
  }
  return new Date(ms).toISOString();
}
