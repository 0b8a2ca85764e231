/**
 * What verifyBundle answers (CONTRACT section 12): exactly ten checks, always all ten, in this order, each `ok` or
 * not with a `detail` saying why (or what it saw). `valid` is true only when all ten are ok.
 */
export const BUNDLE_CHECKS = [
  'bundle_signature',
  'references_digest',
  'decision_map_signature',
  'evidence_pack_signature',
  'delegation_chain_signatures',
  'delegation_attenuation',
  'checkpoint_signature',
  'audit_inclusion',
  'replay_equal',
  'temporal_validity',
] as const;

export type BundleCheckName = (typeof BUNDLE_CHECKS)[number];

export interface BundleCheck {
  name: BundleCheckName;
  ok: boolean;
  detail?: string;
}

export interface BundleVerificationResult {
  valid: boolean;
  checks: BundleCheck[];
}

export interface VerifyBundleOptions {
  /** the audit log the checkpoints must come from; any origin when omitted (the signatures still cover it) */
  origin?: string;
}

/** A check's outcome: true, or why it failed; `{ ok: true, detail }` to say what was seen. */
export type BundleCheckOutcome = true | string | { ok: true; detail: string };
