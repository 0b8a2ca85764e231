import { preparsePolicySet } from '@cedar-policy/cedar-wasm/nodejs';
import type { AuthorizationCall, PolicySet, StatefulAuthorizationCall } from '@cedar-policy/cedar-wasm/nodejs';
import { CEDAR_POLICIES } from './cedar-policies.ts';
import type { CedarRequest } from './to-cedar-request.ts';

const POLICY_SET: PolicySet = { staticPolicies: { ...CEDAR_POLICIES } };

/** The id under which cedar-wasm caches the parsed policy set (per thread, for the life of the process). */
export const PREPARSED_POLICY_SET_ID = 'aar-decide-vs-cedar';

/** A call for `isAuthorized`, which parses the policy text on every call. */
export function toCedarCall(request: CedarRequest): AuthorizationCall {
  return { ...request, policies: POLICY_SET };
}

/** A call for `statefulIsAuthorized`, which reads the set parsed once by `preparseCedarPolicies`. */
export function toPreparsedCedarCall(request: CedarRequest): StatefulAuthorizationCall {
  return { ...request, preparsedPolicySetId: PREPARSED_POLICY_SET_ID };
}

/** Parses and caches the policy set; idempotent. Throws with Cedar's messages when the text does not parse. */
export function preparseCedarPolicies(): void {
  const answer = preparsePolicySet(PREPARSED_POLICY_SET_ID, POLICY_SET);
  if (answer.type !== 'success') {
    throw new Error(`cedar policies do not parse: ${answer.errors.map((e) => e.message).join('; ')}`);
  }
}
