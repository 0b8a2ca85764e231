/**
 * The rules of decide (CONTRACT section 3) for an `execute` under a root grant, as a Cedar policy set.
 *
 * Shape: one permit that admits any purchase by an agent on a card token, and one forbid per reason code, keyed by
 * that code. Cedar has two answers and reports the forbids that held, so the third outcome is read back from which
 * forbids decided (read-cedar-outcome.ts): a deny decided only by APPROVAL_POLICY_IDS is `require_approval`. Limits
 * are forbids rather than permit conditions for that reason; the price is that a forbid that errors is skipped by
 * Cedar (fail open), which the reader answers by treating any evaluation error as a deny.
 */

/** The permit; it decides every allow. */
export const PERMIT_POLICY_ID = 'purchase_execute';

/** Forbids that the principal's approval lifts: the deny they alone decide is `require_approval`. */
export const APPROVAL_POLICY_IDS: readonly string[] = ['risk_state_elevated', 'amount_above_approval_threshold'];

const FORBID = 'forbid (principal, action == Action::"purchase.execute", resource)';

export const CEDAR_POLICIES: Readonly<Record<string, string>> = {
  [PERMIT_POLICY_ID]: 'permit (principal is Agent, action == Action::"purchase.execute", resource is CardToken);',

  payload_signature_missing: `${FORBID} when { context.payload.required && !context.payload.present };`,
  payload_signature_invalid: `${FORBID} when { context.payload.required && !context.payload.signature_valid };`,
  payload_stale: `${FORBID} when { context.payload.required } unless {
    context.payload has created &&
    context.now - context.payload.created <= context.payload.window_seconds &&
    context.payload.created - context.now <= context.payload.window_seconds
  };`,
  payload_replayed: `${FORBID} when { context.payload.required && !context.payload.nonce_fresh };`,

  principal_inactive: `${FORBID} unless { context.principal.state == "active" };`,
  actor_inactive: `${FORBID} unless { principal.state == "active" };`,
  instrument_inactive: `${FORBID} unless { resource.state == "active" };`,
  instrument_not_bound: `${FORBID} unless { resource.owner == context.principal };`,

  authority_not_found: `${FORBID} unless {
    context.grant.actor == principal && context.grant.principal == context.principal && context.grant.card == resource
  };`,
  capability_not_granted: `${FORBID} unless { context.grant.actions.contains("execute") };`,
  authority_revoked: `${FORBID} unless { context.grant.state == "active" };`,
  authority_expired: `${FORBID} when { context.grant has valid_until && context.grant.valid_until <= context.now };`,
  delegation_invalid: `${FORBID} unless { context.grant.signature_valid };`,

  merchant_unknown: `${FORBID} unless { context.merchant.state == "active" };`,
  merchant_category_blocked: `${FORBID} when {
    context.grant has blocked_categories && context.grant.blocked_categories.contains(context.merchant.category)
  };`,
  merchant_category_not_allowed: `${FORBID} when {
    context.grant has allowed_categories && !context.grant.allowed_categories.contains(context.merchant.category)
  };`,
  jurisdiction_not_allowed: `${FORBID} when {
    context.grant has allowed_jurisdictions &&
    !context.grant.allowed_jurisdictions.contains(context.merchant.jurisdiction)
  };`,

  currency_mismatch: `${FORBID} unless { [context.currency].containsAll(context.grant.currencies) };`,
  amount_above_agent_threshold: `${FORBID} when {
    context.amount <= 0 ||
    (context.grant has max_amount_per_purchase && context.amount > context.grant.max_amount_per_purchase)
  };`,
  daily_limit_exceeded: `${FORBID} when {
    context.grant has max_daily_amount && context.spent_today + context.amount > context.grant.max_daily_amount
  };`,

  risk_state_blocked: `${FORBID} unless {
    ["normal", "elevated"].containsAll([context.risk.actor, context.risk.principal, context.risk.instrument])
  };`,
  risk_state_elevated: `${FORBID} when {
    [context.risk.actor, context.risk.principal, context.risk.instrument].contains("elevated")
  } unless { context.approved };`,
  amount_above_approval_threshold: `${FORBID} when {
    context.grant has requires_approval_above && context.amount > context.grant.requires_approval_above
  } unless { context.approved };`,
};
