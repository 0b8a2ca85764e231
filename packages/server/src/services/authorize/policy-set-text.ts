/**
 * The canonical text of a snapshot's `policy_set`, computed once per policy-set object. The active policy set is
 * cached per grant version (services/policy/active-policy-set.ts) and the same object goes into every decision's
 * snapshot until the version moves; with 50 rules it is tens of KB, so canonicalising it again for every decision
 * record cost more than evaluating the rules.
 * INVARIANT: nobody mutates a cached policy set (authorize completes other snapshot members in place, never this
 * one); the text is exactly `tryCanonicalJson` of the object, which canonicalDecisionRecord splices in as is.
 */
import { tryCanonicalJson } from '@aar/core';
import { POLICY_SET_MARKER } from '../decisions/record-bytes.ts';

const texts = new WeakMap<object, string | null>();

/** The parts of a record whose text is known: the policy set, when it has a canonical text. */
export function knownPolicySetText(policySet: object | undefined): ReadonlyMap<object, string> | undefined {
  if (policySet === undefined) return undefined;
  let text = texts.get(policySet);
  if (text === undefined) {
    text = tryCanonicalJson(policySet) ?? null;
    texts.set(policySet, text);
  }
  return text === null ? undefined : new Map<object, string>([[policySet, text]]);
}

/**
 * The record's known parts when its policy set text is stored once (codec 2): the set stands as POLICY_SET_MARKER,
 * which decisionRecordBytes replaces by the text only in the digest (services/decisions/record-bytes.ts).
 */
export function markedPolicySet(policySet: object): ReadonlyMap<object, string> {
  return new Map<object, string>([[policySet, POLICY_SET_MARKER]]);
}
