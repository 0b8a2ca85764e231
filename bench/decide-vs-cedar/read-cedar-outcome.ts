import type { AuthorizationAnswer } from '@cedar-policy/cedar-wasm/nodejs';
import type { Decision } from '@aar/core';
import { APPROVAL_POLICY_IDS } from './cedar-policies.ts';

export interface CedarOutcome {
  /** Cedar's allow/deny mapped onto decide's three decisions */
  decision: Decision;
  /** the policies that decided: the permit on allow, every forbid that held on deny */
  policyIds: string[];
}

/**
 * Reads Cedar's two-valued answer as one of decide's three. Fail closed: a failed call or a policy that errored
 * (Cedar skips it, which for a forbid would mean allowing) is a deny. A deny decided only by approval forbids is
 * `require_approval`; a deny with no forbid (the permit did not apply) stays a deny.
 */
export function readCedarOutcome(answer: AuthorizationAnswer): CedarOutcome {
  if (answer.type !== 'success') return { decision: 'deny', policyIds: [] };
  const { decision, diagnostics } = answer.response;
  const policyIds = [...diagnostics.reason].sort();
  if (diagnostics.errors.length > 0) return { decision: 'deny', policyIds };
  if (decision === 'allow') return { decision: 'allow_with_constraints', policyIds };
  const onlyApproval = policyIds.length > 0 && policyIds.every((id) => APPROVAL_POLICY_IDS.includes(id));
  return { decision: onlyApproval ? 'require_approval' : 'deny', policyIds };
}
