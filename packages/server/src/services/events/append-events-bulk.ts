/**
 * Many events from ONE operation (a revocation cascade over a subtree): one audit entry records the operation and
 * commits to every event of it (its record is the list of event ids with their digests), and the envelopes are
 * inserted in chunks. Same guarantees as appendEvent — same transaction, must run inside a write-queue unit — at a
 * cost that stays within a second for 100k events on the embedded default.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, mintedId } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { subjectRefForAudit } from '../../audit/subject-commitment.ts';
import type { Database } from '../../store/index.ts';
import { auditOf } from '../../store/write-queue.ts';
import type { EventInput, UnsignedEventEnvelope } from './append-event.ts';

/** rows per INSERT: 5 columns each, far under SQLite's 32,766 bound variables */
const CHUNK = 2000;

export interface BulkEventsInput {
  /** the operation the audit entry records, e.g. `ns.authority.revoked` */
  kind: string;
  /** what the operation acted on (e.g. the revoked grant at the top of the subtree) */
  subject_ref: string;
  /** facts about the operation itself, committed together with the events' digests */
  operation: Record<string, unknown>;
  events: Array<Omit<EventInput, 'audit_ref' | 'audit_record'>>;
}

export async function appendEventsBulk(
  trx: Transaction<Database>,
  ctx: AppContext,
  input: BulkEventsInput,
): Promise<{ audit_ref: string; events: UnsignedEventEnvelope[] }> {
  const occurredAt = ctx.clock.now().toISOString();
  const auditRef = mintedId('audit', ctx.newUuid());
  const envelopes: UnsignedEventEnvelope[] = input.events.map((e) => {
    const eventId = mintedId('event', ctx.newUuid());
    return {
      schema_version: 'ns.webhook.v1',
      event_id: eventId,
      event_type: e.event_type,
      occurred_at: occurredAt,
      actor_entity_id: e.actor_entity_id,
      principal_entity_id: e.principal_entity_id,
      subject_ref: e.subject_ref,
      reason_code: e.reason_code,
      data: e.data,
      audit_ref: auditRef,
      evidence_refs: e.evidence_refs ?? [],
      delivery: { idempotency_key: eventId, replayable: true },
    };
  });
  const texts = envelopes.map((e) => JSON.stringify(e));
  const digests = envelopes.map(
    (e) => `${e.event_id} ${createHash('sha256').update(canonicalJson(e), 'utf8').digest('base64url')}`,
  );
  await auditOf(trx).append({
    audit_id: auditRef,
    kind: input.kind,
    subject_ref: await subjectRefForAudit(trx, input.subject_ref, occurredAt),
    record: { operation: input.operation, event_count: envelopes.length, events: digests },
    occurred_at: occurredAt,
  });
  for (let i = 0; i < envelopes.length; i += CHUNK) {
    await trx
      .insertInto('events')
      .values(
        envelopes.slice(i, i + CHUNK).map((e, j) => ({
          event_id: e.event_id,
          event_type: e.event_type,
          occurred_at: occurredAt,
          subject_ref: e.subject_ref,
          envelope: texts[i + j]!,
        })),
      )
      .execute();
  }
  return { audit_ref: auditRef, events: envelopes };
}
