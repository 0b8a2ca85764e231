/**
 * The policy a decision was made under (`ns:policy:<name>` in the map and the snapshot): its version, the engine
 * that runs it and the checks in their contractual order with the reasons each can give (CONTRACT section 3).
 * Derived from core's closed lists, so it cannot drift from what `decide` does.
 */
import { AarError, CHECK_ORDER, REASON_CODES, type Decision, type ReasonCode } from '@aar/core';
import { ENGINE_VERSION } from '../authorize/engine-version.ts';
import { POLICY } from '../authorize/load-snapshot.ts';

export interface PolicyView {
  policy_id: string;
  version: string;
  engine_version: string;
  description: string;
  checks: Array<{ step: number; check: string; reasons: Array<{ reason: ReasonCode; decision: Decision }> }>;
  conclusion: Array<{ reason: ReasonCode; decision: Decision }>;
}

function reasonsOf(check: string): Array<{ reason: ReasonCode; decision: Decision }> {
  return (Object.keys(REASON_CODES) as ReasonCode[])
    .filter((reason) => REASON_CODES[reason].check === check)
    .map((reason) => ({ reason, decision: REASON_CODES[reason].decision }));
}

function policyView(): PolicyView {
  return {
    policy_id: POLICY.policy_id,
    version: POLICY.version,
    engine_version: ENGINE_VERSION,
    description:
      'the default card-purchase policy: the checks run in this order and the first that fails names the reason; ' +
      'when all pass the decision is allowed within the attenuated scope',
    checks: CHECK_ORDER.map((check, i) => ({ step: i + 1, check, reasons: reasonsOf(check) })),
    conclusion: reasonsOf('conclusion'),
  };
}

export function listPolicies(): PolicyView[] {
  return [policyView()];
}

export function getPolicy(id: string): PolicyView {
  if (id !== POLICY.policy_id) throw new AarError('not_found', `no policy \`${id.slice(0, 160)}\``);
  return policyView();
}
