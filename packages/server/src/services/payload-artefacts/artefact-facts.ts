/**
 * The fixed facts of a payload artefact row (every column but `seq`, the state columns `state`, `outcome`,
 * `executed_at`, and the instants `received_at` / `decided_at`, which are the occurred_at of its events) and their
 * digest, which its `verified` or `rejected` event carries as `facts_digest`: audit verify
 * (audit/record-checks/check-payload-artefacts.ts) recomputes it from the row, so an edit of any fact made with the
 * database's guards dropped is found, while the events stay ids and digests only.
 */
import { canonicalJson, mandateDigest } from '@aar/core';
import type { PayloadArtefactsTable } from '../../store/schema-payload-artefacts.ts';

export type FactColumns = Pick<
  PayloadArtefactsTable,
  | 'payload_artefact_id'
  | 'kind'
  | 'digest'
  | 'agent_signature'
  | 'agent_key_thumbprint'
  | 'policy_decision_id'
  | 'mandate_id'
  | 'actor_entity_id'
  | 'principal_entity_id'
  | 'basket_hash'
  | 'amount_minor'
  | 'currency'
  | 'reason'
  | 'verified_for'
>;

/** base64url SHA-256 of the RFC 8785 bytes of the facts (the stored texts as stored, the amount as a number). */
export function factsDigest(row: FactColumns): string {
  return mandateDigest(
    canonicalJson({
      payload_artefact_id: row.payload_artefact_id,
      kind: row.kind,
      digest: row.digest,
      agent_signature: row.agent_signature,
      agent_key_thumbprint: row.agent_key_thumbprint,
      policy_decision_id: row.policy_decision_id,
      mandate_id: row.mandate_id,
      actor_entity_id: row.actor_entity_id,
      principal_entity_id: row.principal_entity_id,
      basket_hash: row.basket_hash,
      amount_minor: row.amount_minor === null ? null : Number(row.amount_minor),
      currency: row.currency,
      reason: row.reason,
      verified_for: row.verified_for,
    }),
  );
}
