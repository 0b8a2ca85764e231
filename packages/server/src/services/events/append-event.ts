/**
 * The event outbox: every state change writes its `ns.webhook.v1` envelope (CONTRACT section 9) in the SAME
 * transaction as the change, and the audit entry that records it, so an event and its audit entry exist if and only
 * if the change committed. Must run inside a write-queue unit (store/write-queue.ts).
 * Envelopes are stored unsigned and signed when read or delivered (sign-envelope.ts): Ed25519 is deterministic, so
 * every reader sees the same signature while the key is current, and a cascade of 100k changes does not pay 100k
 * signatures before it can answer.
 */
import { mintedId } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { subjectRefForAudit } from '../../audit/subject-commitment.ts';
import type { Database } from '../../store/index.ts';
import { prepareQuery } from '../../store/prepared-query.ts';
import { auditOf } from '../../store/write-queue.ts';
import { assertCatalogued } from './catalogued-event.ts';
import { checkEnvelopeInTests } from './check-envelope-in-tests.ts';

export interface EventInput {
  event_type: string;
  /** who acted: an entity id, or the credential id for administrative changes */
  actor_entity_id: string | null;
  principal_entity_id: string | null;
  subject_ref: string;
  reason_code: string;
  data: Record<string, unknown>;
  /** the audit entry's id when the caller minted it already (a decision names it in its response) */
  audit_ref?: string;
  evidence_refs?: string[];
  /** what the audit entry commits to; the unsigned envelope when absent */
  audit_record?: unknown;
  /** the digest of what the audit entry commits to, when the caller computed it (instead of `audit_record`) */
  audit_record_digest?: string;
  /**
   * false: the envelope is derived on read from another row, so the events row stores '' (a decision's event,
   * decision-envelope.ts; the caller checks that the derivation gives this envelope back). Default: stored.
   */
  storeEnvelope?: (envelope: UnsignedEventEnvelope) => boolean;
}

export interface UnsignedEventEnvelope {
  schema_version: 'ns.webhook.v1';
  event_id: string;
  event_type: string;
  occurred_at: string;
  actor_entity_id: string | null;
  principal_entity_id: string | null;
  subject_ref: string;
  reason_code: string;
  data: Record<string, unknown>;
  audit_ref: string;
  evidence_refs: string[];
  delivery: { idempotency_key: string; replayable: boolean };
}

export type EventEnvelope = UnsignedEventEnvelope & {
  signature: { algorithm: 'ed25519'; key_id: string; signature: string };
};

const INSERT_EVENT = prepareQuery(
  ['event_id', 'event_type', 'occurred_at', 'subject_ref', 'envelope'],
  (db, args: { event_id: string; event_type: string; occurred_at: string; subject_ref: string; envelope: string }) =>
    db.insertInto('events').values(args),
);

export async function appendEvent(
  trx: Transaction<Database>,
  ctx: AppContext,
  input: EventInput,
): Promise<UnsignedEventEnvelope> {
  const { envelope, row } = await prepareEvent(trx, ctx, input);
  await INSERT_EVENT.execute(trx, row);
  return envelope;
}

/** The events row `appendEvent` inserts (the caller inserts it in the same transaction, or the unit fails). */
export interface EventRow {
  event_id: string;
  event_type: string;
  occurred_at: string;
  subject_ref: string;
  envelope: string;
}

/**
 * Everything `appendEvent` does but the insert of the events row, which the caller makes itself in the same unit of
 * work (authorize on PostgreSQL writes it in one statement with the decision: commit-decision.ts). The audit entry
 * is appended here, so a unit that does not insert the row must fail (its savepoint takes the entry back).
 */
export async function prepareEvent(
  trx: Transaction<Database>,
  ctx: AppContext,
  input: EventInput,
): Promise<{ envelope: UnsignedEventEnvelope; row: EventRow }> {
  assertCatalogued(input.event_type, input.reason_code);
  const eventId = mintedId('event', ctx.newUuid());
  const occurredAt = ctx.clock.now().toISOString();
  const envelope: UnsignedEventEnvelope = {
    schema_version: 'ns.webhook.v1',
    event_id: eventId,
    event_type: input.event_type,
    occurred_at: occurredAt,
    actor_entity_id: input.actor_entity_id,
    principal_entity_id: input.principal_entity_id,
    subject_ref: input.subject_ref,
    reason_code: input.reason_code,
    data: input.data,
    audit_ref: input.audit_ref ?? mintedId('audit', ctx.newUuid()),
    evidence_refs: input.evidence_refs ?? [],
    delivery: { idempotency_key: eventId, replayable: true },
  };
  checkEnvelopeInTests(envelope);
  await auditOf(trx).append({
    audit_id: envelope.audit_ref,
    kind: input.event_type,
    subject_ref: await subjectRefForAudit(trx, input.subject_ref, occurredAt),
    ...(input.audit_record_digest !== undefined
      ? { record_digest: input.audit_record_digest }
      : { record: input.audit_record ?? envelope }),
    occurred_at: occurredAt,
  });
  const row: EventRow = {
    event_id: eventId,
    event_type: input.event_type,
    occurred_at: occurredAt,
    subject_ref: input.subject_ref,
    envelope: input.storeEnvelope?.(envelope) === false ? '' : JSON.stringify(envelope),
  };
  return { envelope, row };
}
