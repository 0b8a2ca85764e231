/**
 * `ns.payload_artefact.v1` (schemas/ns.payload_artefact.v1.schema.json, docs/artefacts.md): the artefact's row and
 * its lifecycle events, signed with the service key (CONTRACT section 4). The document is built and signed when it is
 * answered (Ed25519 is deterministic: the same row and key give the same bytes); what it states is the row, and each
 * transition names the event and audit entry that chain it, so a reader can check it against the audit log.
 */
import { moneyToJson, signDocument } from '@aar/core';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import type { PayloadArtefactsTable } from '../../store/schema-payload-artefacts.ts';
import type { AgentSignature } from './agent-statement.ts';

export const ARTEFACT_SCHEMA = 'ns.payload_artefact.v1';

export type ArtefactRow = Selectable<PayloadArtefactsTable>;

/** The events that move an artefact's state (an `execution_refused` moves nothing and is not a transition). */
export const TRANSITION_EVENTS = {
  'ns.payload_artefact.received': 'received',
  'ns.payload_artefact.verified': 'verified',
  'ns.payload_artefact.rejected': 'rejected',
  'ns.payload_artefact.executed': 'executed',
} as const;

export interface Transition {
  state: 'received' | 'verified' | 'rejected' | 'executed';
  at: string;
  event_id: string;
  audit_ref: string;
}

export interface UnsignedArtefactDocument {
  schema_version: typeof ARTEFACT_SCHEMA;
  payload_artefact_id: string;
  issuer: string;
  kind: ArtefactRow['kind'];
  digest: string;
  agent_signature: AgentSignature | null;
  agent_key_thumbprint: string | null;
  policy_decision_id: string;
  mandate_id: string | null;
  actor_entity_id: string | null;
  principal_entity_id: string | null;
  basket_hash: string | null;
  amount: { amount: number; currency: string } | null;
  state: ArtefactRow['state'];
  reason: string | null;
  outcome: 'executed' | 'failed' | null;
  received_at: string;
  decided_at: string;
  executed_at: string | null;
  transitions: Transition[];
}

export type ArtefactDocument = UnsignedArtefactDocument & {
  signature: { algorithm: 'ed25519'; key_id: string; signature: string };
};

/** The transitions of one artefact, oldest first, from its chained events. */
export async function transitionsOf(
  db: Kysely<Database> | Transaction<Database>,
  artefactId: string,
): Promise<Transition[]> {
  const rows = await db
    .selectFrom('events')
    .select(['event_type', 'envelope'])
    .where('subject_ref', '=', artefactId)
    .where('event_type', 'in', Object.keys(TRANSITION_EVENTS))
    .orderBy('seq')
    .execute();
  return rows.map((r) => {
    const envelope = JSON.parse(r.envelope) as { event_id: string; audit_ref: string; occurred_at: string };
    return {
      state: TRANSITION_EVENTS[r.event_type as keyof typeof TRANSITION_EVENTS],
      at: envelope.occurred_at,
      event_id: envelope.event_id,
      audit_ref: envelope.audit_ref,
    };
  });
}

export async function artefactDocument(
  ctx: AppContext,
  row: ArtefactRow,
  transitions: Transition[],
): Promise<ArtefactDocument> {
  const amountMinor = row.amount_minor === null ? null : Number(row.amount_minor);
  const unsigned: UnsignedArtefactDocument = {
    schema_version: ARTEFACT_SCHEMA,
    payload_artefact_id: row.payload_artefact_id,
    issuer: ctx.config.issuerUrl,
    kind: row.kind,
    digest: row.digest,
    agent_signature: row.agent_signature === null ? null : (JSON.parse(row.agent_signature) as AgentSignature),
    agent_key_thumbprint: row.agent_key_thumbprint,
    policy_decision_id: row.policy_decision_id,
    mandate_id: row.mandate_id,
    actor_entity_id: row.actor_entity_id,
    principal_entity_id: row.principal_entity_id,
    basket_hash: row.basket_hash,
    amount:
      amountMinor === null || row.currency === null
        ? null
        : moneyToJson({ minor: amountMinor, currency: row.currency }),
    state: row.state,
    reason: row.reason,
    outcome: row.outcome,
    received_at: row.received_at,
    decided_at: row.decided_at,
    executed_at: row.executed_at,
    transitions,
  };
  return signDocument(unsigned, ctx.keys.current());
}
