/**
 * The evidence verification result (SPEC "Evidence verification result"): `{ valid, algorithm, key_id,
 * replay_decision }`, plus `checks`, one entry per check in the order they run, each with a stable failure code.
 * `valid` is true only when every check passed: an authentic pack whose decision does not replay is not valid
 * evidence of that decision.
 */
import type { Decision } from '../decide/reason-codes.ts';
import type { DecisionReason, DecisionStopCondition, Obligation } from '../decide/types.ts';

export const EVIDENCE_CHECKS = [
  'pack_signature',
  'decision_map_signature',
  'bindings',
  'audit_entry',
  'record_digest',
  'inclusion_proof',
  'checkpoint',
  /** aar-decide/1.3.0, only when the snapshot or the decision map carries a policy set: see verify-policy-set.ts */
  'policy_set',
  /** issue 29, only when the snapshot's grants carry a mandate or the pack a `mandates` member: verify-pack-mandates.ts */
  'mandates',
  /** issue 30, only when the snapshot, the pack or the map's actor node carries agent metadata: verify-pack-agent-metadata.ts */
  'agent_metadata',
  'replay',
] as const;

export type EvidenceCheckName = (typeof EVIDENCE_CHECKS)[number];

export interface EvidenceCheck {
  check: EvidenceCheckName;
  valid: boolean;
  /** why it failed: a signature failure (`unknown_key`, `signature_mismatch`…), a Merkle failure, or one of
   * `malformed_pack`, `decision_mismatch`, `audit_ref_mismatch`, `evidence_ref_mismatch`, `digest_mismatch`,
   * `malformed_entry`, `leaf_hash_mismatch`, `index_mismatch`, `tree_size_mismatch`, `malformed_checkpoint`,
   * `origin_mismatch`, `replay_mismatch`, and for `policy_set`: `malformed_policy_set`, `policy_signature_invalid`,
   * `policy_digest_mismatch`, and for `mandates`: `malformed_mandates`, `mandate_missing`, `mandate_digest_mismatch`,
   * `mandate_signature_invalid`, and for `agent_metadata`: `agent_metadata_missing`, `agent_metadata_digest_mismatch`,
   * `agent_metadata_mismatch`, `agent_metadata_signature_invalid` */
  failure?: string;
}

/** What decide answers on the pack's snapshot, request and now, and whether it equals what the pack recorded. */
export interface ReplayDecision {
  decision: Decision;
  reason: DecisionReason;
  obligations: Obligation[];
  stop_conditions: DecisionStopCondition[];
  /** decision, reason, obligations and stop conditions all equal the recorded ones */
  matches: boolean;
}

export interface EvidenceVerificationResult {
  valid: boolean;
  algorithm: 'ed25519';
  /** the `key_id` of the pack's signature; null when the pack carries none */
  key_id: string | null;
  /** null when the pack has no request, snapshot or now to replay */
  replay_decision: ReplayDecision | null;
  checks: EvidenceCheck[];
}

export interface VerifyEvidencePackOptions {
  /** the log the checkpoint must come from; when omitted any origin is accepted (the pack's signature covers it) */
  origin?: string;
}
