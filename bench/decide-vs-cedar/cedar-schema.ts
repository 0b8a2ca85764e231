/**
 * The Cedar schema of the policy set in cedar-policies.ts. Not passed on the timed calls (Cedar would parse it on
 * every `isAuthorized`); the smoke test validates the policies and a request against it, so a typo in an attribute
 * name cannot silently turn a forbid into an error (Cedar skips a policy that errors).
 * Amounts are integer minor units (Long), instants unix seconds (Long).
 */
export const CEDAR_SCHEMA = `
entity Person = { state: String };
entity Agent = { state: String };
entity CardToken = { state: String, owner: Person };
entity Grant = {
  state: String,
  signature_valid: Bool,
  actor: Agent,
  principal: Person,
  card: CardToken,
  actions: Set<String>,
  currencies: Set<String>,
  valid_until?: Long,
  max_amount_per_purchase?: Long,
  max_daily_amount?: Long,
  requires_approval_above?: Long,
  allowed_categories?: Set<String>,
  blocked_categories?: Set<String>,
  allowed_jurisdictions?: Set<String>,
};

action "purchase.execute" appliesTo {
  principal: Agent,
  resource: CardToken,
  context: {
    now: Long,
    payload: {
      required: Bool,
      present: Bool,
      signature_valid: Bool,
      created?: Long,
      nonce_fresh: Bool,
      window_seconds: Long,
    },
    principal: Person,
    grant: Grant,
    amount: Long,
    currency: String,
    spent_today: Long,
    merchant: { category: String, jurisdiction: String, state: String },
    risk: { actor: String, principal: String, instrument: String },
    approved: Bool,
  },
};
`;
