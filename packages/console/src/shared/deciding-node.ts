/**
 * Which node of the decision map's chain a reason points at, so the map can show where a purchase was stopped.
 * The allow reasons point at none: every node held.
 */
import type { DecisionMapNodeType, ReasonCode } from '@aar/core';

const NODE_OF_REASON: Record<ReasonCode, DecisionMapNodeType | null> = {
  payload_signature_missing: 'actor',
  payload_signature_invalid: 'actor',
  payload_stale: 'actor',
  payload_replayed: 'actor',
  principal_inactive: 'principal',
  actor_inactive: 'actor',
  agent_metadata_mismatch: 'actor',
  instrument_inactive: 'scope',
  instrument_not_bound: 'scope',
  authority_not_found: 'delegation',
  capability_not_granted: 'capability',
  authority_revoked: 'delegation',
  authority_expired: 'delegation',
  delegation_invalid: 'delegation',
  merchant_unknown: 'scope',
  merchant_category_blocked: 'scope',
  merchant_category_not_allowed: 'scope',
  jurisdiction_not_allowed: 'scope',
  currency_mismatch: 'scope',
  amount_above_agent_threshold: 'scope',
  daily_limit_exceeded: 'scope',
  mandate_revoked: 'delegation',
  mandate_expired: 'delegation',
  allowance_used: 'delegation',
  merchant_not_allowed: 'scope',
  budget_exceeded: 'scope',
  risk_state_blocked: 'state',
  risk_state_elevated: 'state',
  amount_above_approval_threshold: 'policy',
  approval_pending: 'policy',
  approval_rejected: 'policy',
  approval_expired: 'policy',
  approval_mismatch: 'policy',
  approved_by_principal: null,
  scope_within_attenuated_authority: null,
};

/** A rule pack's reason (`<pack>.<code>`) is the policy node's: the packs hang there (CONTRACT section 19). */
export function decidingNode(reason: string): DecisionMapNodeType | null {
  if (Object.hasOwn(NODE_OF_REASON, reason)) return NODE_OF_REASON[reason as ReasonCode];
  return /^[a-z][a-z0-9_-]{1,62}\.[a-z][a-z0-9_]{0,62}$/.test(reason) ? 'policy' : null;
}
