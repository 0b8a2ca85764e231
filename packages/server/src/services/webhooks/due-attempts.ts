import type { AppContext } from '../../app-context.ts';

export interface DueAttempt {
  seq: number;
  event_id: string;
  event_seq: number;
  event_type: string;
  attempt: number;
  /** 1 when queued by a replay (its retries keep the mark) */
  replay: number;
}

/**
 * The endpoint's attempts due now, in commit order of their events (a retry of an older event goes before the first
 * attempt of a newer one once it is due; until then, newer events do not wait for it).
 */
export async function dueAttempts(ctx: AppContext, endpointId: string, limit: number): Promise<DueAttempt[]> {
  const rows = await ctx.store.db
    .selectFrom('webhook_attempts')
    .select(['seq', 'event_id', 'event_seq', 'event_type', 'attempt', 'replay'])
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', ctx.clock.now().toISOString())
    .orderBy('event_seq')
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq), event_seq: Number(r.event_seq) }));
}
