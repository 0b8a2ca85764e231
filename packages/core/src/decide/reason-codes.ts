/**
 * The closed list of decisions, checks and reason codes of CONTRACT section 3. This is public contract: a new code is
 * a minor version, a renamed or removed one a major (SPEC "Versioning").
 */

export type Decision = 'allow_with_constraints' | 'require_approval' | 'deny';

/** The eight checks, in the order decide runs them (CONTRACT section 3, steps 1-8). */
export const CHECK_ORDER = [
  'payload',
  'entities',
  'authority',
  'chain',
  'merchant',
  'amount',
  'risk',
  'approval',
] as const;

export type CheckName = (typeof CHECK_ORDER)[number];

export interface ReasonCodeInfo {
  decision: Decision;
  /** the check that names this reason; the two allow reasons are the conclusion (step 9) */
  check: CheckName | 'conclusion';
}

export const REASON_CODES = {
  payload_signature_missing: { decision: 'deny', check: 'payload' },
  payload_signature_invalid: { decision: 'deny', check: 'payload' },
  payload_stale: { decision: 'deny', check: 'payload' },
  payload_replayed: { decision: 'deny', check: 'payload' },
  principal_inactive: { decision: 'deny', check: 'entities' },
  actor_inactive: { decision: 'deny', check: 'entities' },
  instrument_inactive: { decision: 'deny', check: 'entities' },
  instrument_not_bound: { decision: 'deny', check: 'entities' },
  /** aar-decide/1.5.0: the request's agent metadata is not the one the agent attested (checked right after the actor) */
  agent_metadata_mismatch: { decision: 'deny', check: 'entities' },
  authority_not_found: { decision: 'deny', check: 'authority' },
  capability_not_granted: { decision: 'deny', check: 'authority' },
  authority_revoked: { decision: 'deny', check: 'chain' },
  authority_expired: { decision: 'deny', check: 'chain' },
  delegation_invalid: { decision: 'deny', check: 'chain' },
  mandate_revoked: { decision: 'deny', check: 'chain' },
  mandate_expired: { decision: 'deny', check: 'chain' },
  allowance_used: { decision: 'deny', check: 'chain' },
  merchant_unknown: { decision: 'deny', check: 'merchant' },
  merchant_not_allowed: { decision: 'deny', check: 'merchant' },
  merchant_category_blocked: { decision: 'deny', check: 'merchant' },
  merchant_category_not_allowed: { decision: 'deny', check: 'merchant' },
  jurisdiction_not_allowed: { decision: 'deny', check: 'merchant' },
  currency_mismatch: { decision: 'deny', check: 'amount' },
  amount_above_agent_threshold: { decision: 'deny', check: 'amount' },
  daily_limit_exceeded: { decision: 'deny', check: 'amount' },
  budget_exceeded: { decision: 'deny', check: 'amount' },
  risk_state_blocked: { decision: 'deny', check: 'risk' },
  risk_state_elevated: { decision: 'require_approval', check: 'risk' },
  amount_above_approval_threshold: { decision: 'require_approval', check: 'approval' },
  approval_pending: { decision: 'require_approval', check: 'approval' },
  approval_rejected: { decision: 'deny', check: 'approval' },
  approval_expired: { decision: 'deny', check: 'approval' },
  approval_mismatch: { decision: 'deny', check: 'approval' },
  approved_by_principal: { decision: 'allow_with_constraints', check: 'conclusion' },
  scope_within_attenuated_authority: { decision: 'allow_with_constraints', check: 'conclusion' },
} as const satisfies Record<string, ReasonCodeInfo>;

export type ReasonCode = keyof typeof REASON_CODES;

export function isReasonCode(value: unknown): value is ReasonCode {
  return typeof value === 'string' && Object.hasOwn(REASON_CODES, value);
}

/** A rule pack's reason `<pack name>.<code>` (aar-decide/1.3.0); built-in codes never hold a dot. */
export function isRuleReason(value: unknown): value is `${string}.${string}` {
  return typeof value === 'string' && value.indexOf('.') > 0 && !isReasonCode(value);
}

/**
 * The decision a reason stands for: a built-in code's from REASON_CODES; a rule reason's is its rule's effect, which
 * only the result carries (`result.decision`): pass it as `ruleDecision`, else undefined.
 */
export function decisionOfReason(reason: string, ruleDecision?: Decision): Decision | undefined {
  if (isReasonCode(reason)) return REASON_CODES[reason].decision;
  return isRuleReason(reason) ? ruleDecision : undefined;
}
