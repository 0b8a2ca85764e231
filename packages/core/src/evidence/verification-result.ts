/**
 * The evidence verification result (SPEC "Evidence verification result"): `{ valid, algorithm, key_id,
 * replay_decision }`, plus `checks`, one entry per check in the order they run, each with a stable failure code.
 * `valid` is true only when every check passed: an authentic pack whose decision does not replay is not valid
 * evidence of that decision.
 */
import type { Decision, ReasonCode } from '../decide/reason-codes.ts';
import type { Obligation, StopCondition } from '../decide/types.ts';

export const EVIDENCE_CHECKS = [
  'pack_signature',
  'decision_map_signature',
  'bindings',
  'audit_entry',
  'record_digest',
  'inclusion_proof',
  'checkpoint',
  'replay',
] as const;

export type EvidenceCheckName = (typeof EVIDENCE_CHECKS)[number];

export interface EvidenceCheck {
  check: EvidenceCheckName;
  valid: boolean;
  /** why it failed: a signature failure (`unknown_key`, `signature_mismatch`…), a Merkle failure, or one of
   * `malformed_pack`, `decision_mismatch`, `audit_ref_mismatch`, `evidence_ref_mismatch`, `digest_mismatch`,
   * `malformed_entry`, `leaf_hash_mismatch`, `index_mismatch`, `tree_size_mismatch`, `malformed_checkpoint`,
   * `origin_mismatch`, `replay_mismatch` */
  failure?: string;
}

/** What decide answers on the pack's snapshot, request and now, and whether it equals what the pack recorded. */
export interface ReplayDecision {
  decision: Decision;
  reason: ReasonCode;
  obligations: Obligation[];
  stop_conditions: StopCondition[];
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
