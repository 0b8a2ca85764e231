/**
 * The events that made and changed a page of subjects (entities, card tokens, merchants): the creation event's
 * envelope (its audit entry, its principal, its data) and the state the subject's state events leave it in, read in
 * `seq` (commit) order. Their envelopes are checked against their audit entries by check-events.ts, so a row that
 * agrees with these agrees with the chain. One SELECT per page (by the `events_type` index).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';

export interface SubjectHistory {
  created?: { audit_ref: string; principal_entity_id: unknown; data: Record<string, unknown> };
  /** the state after the subject's last state event; the creation's `initial` when there is none */
  state: string;
}

export async function subjectEvents(
  db: Kysely<Database>,
  subjects: readonly string[],
  created: string,
  initial: string,
  /** event type -> the state it leaves the subject in */
  states: Readonly<Record<string, string>>,
): Promise<Map<string, SubjectHistory>> {
  const out = new Map<string, SubjectHistory>();
  if (subjects.length === 0) return out;
  const rows = await db
    .selectFrom('events')
    .select(['seq', 'event_type', 'subject_ref', 'envelope'])
    .where('event_type', 'in', [created, ...Object.keys(states)])
    .where('subject_ref', 'in', [...new Set(subjects)])
    .orderBy('seq')
    .execute();
  for (const row of rows) {
    const history = out.get(row.subject_ref) ?? { state: initial };
    out.set(row.subject_ref, history);
    if (row.event_type !== created) {
      history.state = states[row.event_type]!;
      continue;
    }
    try {
      const envelope = JSON.parse(row.envelope) as {
        audit_ref?: unknown;
        principal_entity_id?: unknown;
        data?: unknown;
      };
      if (typeof envelope.audit_ref === 'string' && typeof envelope.data === 'object' && envelope.data !== null) {
        history.created = {
          audit_ref: envelope.audit_ref,
          principal_entity_id: envelope.principal_entity_id,
          data: envelope.data as Record<string, unknown>,
        };
      }
    } catch {
      // unreadable: check-events.ts names the event; the subject is then unanchored
    }
  }
  return out;
}
