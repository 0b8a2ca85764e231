/**
 * Decisions in plain words, for the model that drives an agent and for the person reading over its shoulder: one
 * sentence per reason code of CONTRACT section 3 (a Record over the closed union, so a new code fails the type-check
 * until it has its sentence), the next step the agent may take, and a matched rule's condition through core's
 * describeRule. Words only: nothing here decides, and nothing here reads a secret or a card number.
 */
import { describeRule, type Decision, type ReasonCode } from '@aar/core';

const REASON_WORDS: Record<ReasonCode, string> = {
  payload_signature_missing: 'The request reached the service without the agent’s signature.',
  payload_signature_invalid: 'The agent’s signature on the request does not verify with its registered key.',
  payload_stale: 'The agent’s signature is outside the service’s freshness window (check the clock).',
  payload_replayed: 'This exact signed request was already used once.',
  principal_inactive: 'The person the agent acts for is not active (suspended, erased or unknown).',
  actor_inactive: 'The agent itself is not active (suspended, erased or unknown).',
  agent_metadata_mismatch:
    'The agent said it runs as a model, version or operator other than the one it attested with its own key.',
  instrument_inactive: 'The card token is not active.',
  instrument_not_bound: 'The card token belongs to someone else than the person the agent acts for.',
  authority_not_found: 'The person has given this agent no authority over this card token.',
  capability_not_granted: 'The authority given does not cover this kind of action.',
  authority_revoked: 'The authority was revoked (or an agent higher in the delegation chain was stopped).',
  authority_expired: 'The authority has expired.',
  delegation_invalid: 'A link of the delegation chain does not verify or is wider than its parent.',
  merchant_unknown: 'The merchant is unknown to the service or suspended.',
  merchant_category_blocked: 'The merchant’s category is blocked by the authority given.',
  merchant_category_not_allowed: 'The merchant’s category is not among the allowed ones.',
  jurisdiction_not_allowed: 'The merchant’s country is not among the allowed ones.',
  currency_mismatch: 'The purchase is in a currency the authority does not cover.',
  amount_above_agent_threshold: 'The amount is above the per-purchase limit of the authority.',
  daily_limit_exceeded: 'The purchase would go over today’s limit (UTC day) of the authority.',
  mandate_revoked: 'The mandate or allowance behind this authority was revoked.',
  mandate_expired: 'The mandate or allowance behind this authority has expired.',
  allowance_used: 'The one-time allowance was already used for a purchase.',
  merchant_not_allowed: 'The authority does not allow purchases at this merchant.',
  budget_exceeded: 'The purchase would go over the budget of the authority for its period.',
  risk_state_blocked: 'A risk signal blocks the agent, the person or the card token.',
  risk_state_elevated: 'A risk signal is raised: the person must approve this purchase.',
  amount_above_approval_threshold: 'The amount is above the approval threshold: the person must approve it.',
  approval_pending: 'The person has not answered the approval request yet.',
  approval_rejected: 'The person rejected the approval request.',
  approval_expired: 'The approval request expired unanswered.',
  approval_mismatch: 'This retry differs from the purchase the person approved.',
  approved_by_principal: 'The person approved this purchase.',
  scope_within_attenuated_authority: 'The action is within the authority the person gave the agent.',
};

/** A rule pack's reason, `<pack name>.<code>` (CONTRACT section 19). */
const RULE_REASON = /^([a-z][a-z0-9_-]{1,62})\.([a-z][a-z0-9_]{0,62})$/;

export function reasonInWords(reason: string, declared?: string): string {
  if (Object.hasOwn(REASON_WORDS, reason)) return REASON_WORDS[reason as ReasonCode];
  const pack = RULE_REASON.exec(reason)?.[1];
  if (pack) return declared ?? `A rule of the policy pack “${pack}” decided (${reason}).`;
  return `The service gave the reason \`${reason}\`.`;
}

/** What the agent may do next, given the decision. */
export function nextStep(decision: Decision | string, reason: string): string {
  if (decision === 'allow_with_constraints') {
    return 'Go ahead within the obligations; report the outcome to the person’s service when the purchase settles.';
  }
  if (decision === 'require_approval') {
    return reason === 'approval_pending'
      ? 'Wait for the person’s answer (await_approval), then the purchase is retried as approved.'
      : 'Ask the person: call await_approval with this policy_decision_id to wait for their answer.';
  }
  return 'Do not proceed. Tell the person why; only they can widen the authority.';
}

/** A matched rule's `when`, in words; undefined when the expression cannot be read. */
export function ruleConditionInWords(when: unknown): string | undefined {
  try {
    return describeRule(when);
  } catch {
    return undefined;
  }
}
