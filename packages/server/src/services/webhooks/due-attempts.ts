import type { AppContext } from '../../app-context.ts';
import type { UnsignedEventEnvelope } from '../events/append-event.ts';
import { envelopesOf, type StoredEventRow } from '../events/derived-envelope.ts';

export interface DueAttempt {
  seq: number;
  event_id: string;
  event_seq: number;
  event_type: string;
  attempt: number;
  /** 1 when queued by a replay (its retries keep the mark) */
  replay: number;
}

export interface DueRound {
  attempts: DueAttempt[];
  /** the unsigned envelope of each attempt's event, rebuilt as every reader sees them (derived-envelope.ts) */
  envelopes: Map<string, UnsignedEventEnvelope>;
}

/**
 * The endpoint's attempts due now, in commit order of their events (a retry of an older event goes before the first
 * attempt of a newer one once it is due; until then, newer events do not wait for it), with their events' envelopes
 * read by the same statement (a join, rather than a second read naming every event id). An attempt whose event row
 * is missing (only a damaged store: events are write-once and never deleted) is still returned, without envelope.
 */
export async function dueRound(ctx: AppContext, endpointId: string, limit: number): Promise<DueRound> {
  const rows = await ctx.store.db
    .selectFrom('webhook_attempts as a')
    .leftJoin('events as e', 'e.event_id', 'a.event_id')
    .select([
      'a.seq',
      'a.event_id',
      'a.event_seq',
      'a.event_type',
      'a.attempt',
      'a.replay',
      'e.subject_ref',
      'e.envelope',
      'e.operation_ref',
    ])
    .where('a.endpoint_id', '=', endpointId)
    .where('a.status', '=', 'pending')
    .where('a.next_attempt_at', '<=', ctx.clock.now().toISOString())
    .orderBy('a.event_seq')
    .orderBy('a.seq')
    .limit(limit)
    .execute();
  const attempts: DueAttempt[] = [];
  const stored = new Map<string, StoredEventRow>();
  for (const r of rows) {
    attempts.push({
      seq: Number(r.seq),
      event_id: r.event_id,
      event_seq: Number(r.event_seq),
      event_type: r.event_type,
      attempt: r.attempt,
      replay: r.replay,
    });
    if (r.subject_ref !== null && r.envelope !== null && !stored.has(r.event_id)) {
      stored.set(r.event_id, {
        event_id: r.event_id,
        subject_ref: r.subject_ref,
        envelope: r.envelope,
        operation_ref: r.operation_ref,
      });
    }
  }
  const envelopes = new Map<string, UnsignedEventEnvelope>();
  for (const envelope of await envelopesOf(ctx.store.db, [...stored.values()]))
    envelopes.set(envelope.event_id, envelope);
  return { attempts, envelopes };
}
