/** The tables of payload artefacts (migration 0025), part of `Database` (schema.ts). Conventions as in schema.ts. */
import type { Generated } from 'kysely';

export type PayloadArtefactKind = 'checkout' | 'basket' | 'payment_instruction';
export type PayloadArtefactState = 'verified' | 'rejected' | 'executed';

/** One presented payload (services/payload-artefacts); write-once but for its one move verified -> executed. */
export interface PayloadArtefactsTable {
  seq: Generated<number>;
  /** `ns:payload_artefact:<uuid>` */
  payload_artefact_id: string;
  kind: PayloadArtefactKind;
  /** base64url SHA-256 of the payload, as presented */
  digest: string;
  /** the agent's signature object (CONTRACT section 4 form, JSON), as presented; null when unsigned */
  agent_signature: string | null;
  /** RFC 7638 thumbprint of the registered agent key that verified `agent_signature` (verified only) */
  agent_key_thumbprint: string | null;
  /** the decision it was presented against, as presented (it may not exist: `decision_unknown`) */
  policy_decision_id: string;
  /** verified: the decision's mandate (or null); rejected: the mandate the request named (or null) */
  mandate_id: string | null;
  /** the decision's agent and principal; null when the decision is unknown */
  actor_entity_id: string | null;
  principal_entity_id: string | null;
  /** the decision's bound basket hash (`sha-256:` + base64url), if any */
  basket_hash: string | null;
  /** the decision's reservation, integer minor units (PostgreSQL returns the bigint as a string), if any */
  amount_minor: number | string | null;
  currency: string | null;
  state: PayloadArtefactState;
  /** rejected only: one of PAYLOAD_ARTEFACT_REJECTIONS */
  reason: string | null;
  /** `policy_decision_id` when verified (and kept once executed), else null: one live artefact per decision */
  verified_for: string | null;
  /** executed only: what the caller reported */
  outcome: 'executed' | 'failed' | null;
  received_at: string;
  /** when it was verified or rejected */
  decided_at: string;
  executed_at: string | null;
}

export interface PayloadArtefactTables {
  payload_artefacts: PayloadArtefactsTable;
}
