/**
 * The reason codes of payload artefacts (docs/artefacts.md): why one is `rejected`, and why an execution is refused.
 * The event catalogue lists the same codes (core events/families/payload-artefact.ts, as the `reason_code` of
 * `ns.payload_artefact.rejected` and `.execution_refused`); test/payload-artefacts holds the two lists equal.
 */
export const REJECTION_REASONS = [
  'decision_unknown',
  'decision_not_allowed',
  'decision_not_execute',
  'decision_expired',
  'decision_settled',
  'signature_missing',
  'signature_key_unknown',
  'signature_invalid',
  'mandate_mismatch',
  'basket_not_bound',
  'basket_mismatch',
  'decision_has_artefact',
] as const;

export type RejectionReason = (typeof REJECTION_REASONS)[number];

export const EXECUTION_REFUSALS = [
  'artefact_rejected',
  'artefact_executed',
  'decision_unknown',
  'decision_not_allowed',
  'decision_not_execute',
  'decision_settled',
] as const;

export type ExecutionRefusal = (typeof EXECUTION_REFUSALS)[number];
