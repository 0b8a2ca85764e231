/**
 * Each reason code of CONTRACT section 3 in one plain sentence, for people who read the console rather than the
 * contract. A Record over the closed union: a new reason code fails the type-check until it has its sentence.
 */
import type { ReasonCode } from '@aar/core';

export const REASON_TEXT: Record<ReasonCode, string> = {
  payload_signature_missing: "The agent's request was not signed.",
  payload_signature_invalid: "The agent's request signature does not verify.",
  payload_stale: "The agent's request signature is too old or too far in the future.",
  payload_replayed: "The agent's signed request was already used once.",
  principal_inactive: 'The customer is not active (suspended, erased or unknown).',
  actor_inactive: 'The agent is not active (suspended, erased or unknown).',
  agent_metadata_mismatch:
    'The agent presented a model, software version or operator other than the one it attested with its own key.',
  instrument_inactive: 'The card token is not active.',
  instrument_not_bound: 'The card token belongs to another customer.',
  authority_not_found: 'The customer has given this agent no authority over this card.',
  capability_not_granted: 'The authority given does not cover this kind of action.',
  authority_revoked: 'The authority was revoked (or an intermediary agent was stopped).',
  authority_expired: 'The authority has expired.',
  delegation_invalid: 'A link of the delegation chain does not verify or is wider than its parent.',
  merchant_unknown: 'The merchant is unknown or suspended.',
  merchant_category_blocked: "The merchant's category is blocked by the customer's authority.",
  merchant_category_not_allowed: "The merchant's category is not among the allowed ones.",
  jurisdiction_not_allowed: "The merchant's country is not among the allowed ones.",
  currency_mismatch: 'The purchase is in a currency the authority does not cover.',
  amount_above_agent_threshold: "The amount is above the agent's per-purchase limit.",
  daily_limit_exceeded: "The purchase would go over the agent's daily limit.",
  mandate_revoked: 'The mandate (or allowance) this purchase relies on was revoked.',
  mandate_expired: 'The mandate (or allowance) this purchase relies on has expired.',
  allowance_used: 'The one-time allowance was already used for a purchase.',
  merchant_not_allowed: 'The authority does not allow purchases at this merchant.',
  budget_exceeded: "The purchase would go over the authority's budget for its period.",
  risk_state_blocked: 'A risk signal blocks the agent, the customer or the card.',
  risk_state_elevated: 'A risk signal is elevated: the customer must approve.',
  amount_above_approval_threshold: 'The amount is above the approval threshold: the customer must approve.',
  approval_pending: 'The customer has not answered the approval request yet.',
  approval_rejected: 'The customer rejected the approval request.',
  approval_expired: 'The approval request expired unanswered.',
  approval_mismatch: 'The retry does not match what the customer approved.',
  approved_by_principal: 'The customer approved this purchase.',
  scope_within_attenuated_authority: 'The purchase is within the authority the customer gave the agent.',
};

/** A rule pack's reason, `<pack name>.<code>` (CONTRACT section 19): never a built-in code, which has no dot. */
const RULE_REASON = /^([a-z][a-z0-9_-]{1,62})\.([a-z][a-z0-9_]{0,62})$/;

export function ruleReasonPack(reason: string): string | undefined {
  return RULE_REASON.exec(reason)?.[1];
}

/**
 * The sentence for a reason. A rule reason's meaning is the pack's to declare (its `reasons[].description`): given
 * it, that is the sentence; without it, the sentence names the pack.
 */
export function reasonText(reason: string, declared?: string): string {
  if (Object.hasOwn(REASON_TEXT, reason)) return REASON_TEXT[reason as ReasonCode];
  const pack = ruleReasonPack(reason);
  if (pack) return declared ?? `A rule of the policy pack "${pack}" decided.`;
  return 'Unknown reason code.';
}
