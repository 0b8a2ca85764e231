/**
 * The event outbox: every state change writes its `ns.webhook.v1` envelope (CONTRACT section 9) in the SAME
 * transaction as the change, so an event exists if and only if the change committed. Delivery reads this table.
 * Envelopes are signed at write time with the service key (the `asymmetric` profile's body signature).
 */
import { mintedId, signDocument } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';

export interface EventInput {
  event_type: string;
  /** who acted: an entity id, or the credential id for administrative changes */
  actor_entity_id: string | null;
  principal_entity_id: string | null;
  subject_ref: string;
  reason_code: string;
  data: Record<string, unknown>;
  audit_ref?: string;
  evidence_refs?: string[];
}

export interface EventEnvelope {
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
  signature: { algorithm: 'ed25519'; key_id: string; signature: string };
}

export async function appendEvent(
  trx: Transaction<Database>,
  ctx: AppContext,
  input: EventInput,
): Promise<EventEnvelope> {
  const eventId = mintedId('event', ctx.newUuid());
  const occurredAt = ctx.clock.now().toISOString();
  const unsigned = {
    schema_version: 'ns.webhook.v1' as const,
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
  const envelope = (await signDocument(unsigned, ctx.keys.current())) as EventEnvelope;
  await trx
    .insertInto('events')
    .values({
      event_id: eventId,
      event_type: input.event_type,
      occurred_at: occurredAt,
      subject_ref: input.subject_ref,
      envelope: JSON.stringify(envelope),
    })
    .execute();
  return envelope;
}
