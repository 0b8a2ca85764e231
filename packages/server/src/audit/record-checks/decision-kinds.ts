/**
 * The entry kind of each decision (services/authorize/commit-decision.ts writes them): the entry of a decision
 * commits to its decision record, not to its event's envelope.
 */
export const DECISION_ENTRY_KIND: Readonly<Record<string, string>> = {
  allow_with_constraints: 'ns.purchase_authority.allowed',
  deny: 'ns.purchase_authority.denied',
  require_approval: 'ns.decision.requires_approval',
};

export const DECISION_KINDS: ReadonlySet<string> = new Set(Object.values(DECISION_ENTRY_KIND));
