/**
 * `ns.access_decision.v1` (CONTRACT section 20): the signed record of a generic-domain decision. It holds the request
 * as the PEP sent it, the decision, the matched rules that made it, and the policy set by reference (each pack and
 * dictionary version with its digest; the published documents themselves are signed and served by
 * GET /v1/rule-packs and GET /v1/dictionaries), so a reader can re-run `decideGeneric` offline and get the same
 * answer. Signed with the service key like every document of section 4.
 */
import type { RuleDiagnostic } from '@aar/core';

export const ACCESS_DECISION_SCHEMA = 'ns.access_decision.v1';
export const ACCESS_DECISION_PREFIX = 'ns:access_decision:';
/** the audit entry kind of an access decision (not `ns.`: no event goes with it; check-access-decisions.ts) */
export const ACCESS_DECISION_ENTRY_KIND = 'access_decision';

export interface PolicySetRef {
  packs: Array<{ pack_id: string; version: string; digest: string; mode: 'enforce' | 'shadow' }>;
  dictionaries: Array<{ dictionary_id: string; version: string; digest: string }>;
}

export interface UnsignedAccessDecision {
  schema_version: typeof ACCESS_DECISION_SCHEMA;
  access_decision_id: string;
  decided_at: string;
  audit_ref: string;
  /** `{ subject, action, resource, context }` exactly as the rules read it */
  request: Record<string, unknown>;
  decision: 'permit' | 'deny';
  /** the first matched deny rule's reason; `no_permit` when no rule permitted; `no_active_policy` with no pack */
  reason: string;
  /** every matched rule of the enforce packs (deny overrides, default deny) */
  deciding_rules: RuleDiagnostic[];
  policy_set: PolicySetRef;
  /** what each shadow pack would have decided, never decisive */
  shadow: Array<{ pack_id: string; version: string; decision: 'permit' | 'deny'; reason: string }>;
}
