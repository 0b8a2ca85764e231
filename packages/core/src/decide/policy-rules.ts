/**
 * The rule packs of `snapshot.policy_set` as decide applies them (aar-decide/1.3.0, CONTRACT section 19 "Order"):
 * evaluated at most once per decide call (the context `{ request, facts, dict }` does not depend on the chain), and
 * only when some chain needs them (its checks 1-7 passed, or only the elevated-risk check failed).
 *
 * Enforce packs of the purchase domain, in snapshot (activation) order, rules in order: every matched rule is
 * collected; the first matched deny and the first matched require_approval are what decide uses. Shadow packs are
 * evaluated alone on the same context, never decisive. Generic packs are never evaluated here.
 */
import { canonicalJson } from '../json/canonical-json.ts';
import { ruleDiagnostic } from '../rules/decide-generic.ts';
import { matchPack, preparePack, purchaseOutcome, type PreparedRule } from '../rules/evaluate-pack.ts';
import { ruleDict, ruleFacts } from '../rules/rule-context.ts';
import type { RuleDiagnostic, RuleObligation, ShadowOutcome } from '../rules/types.ts';
import { isRecord } from './guards.ts';
import type { DecisionRequest, DecisionSnapshot } from './types.ts';

export interface PolicyOutcome {
  /** every matched enforce rule */
  diagnostics: RuleDiagnostic[];
  deny?: PreparedRule;
  approval?: PreparedRule;
  /** matched rules' obligations, rule order, deduplicated by canonical JSON */
  obligations: RuleObligation[];
  /** matched rules' stop conditions, rule order, deduplicated */
  stopConditions: string[];
  /** undefined when the policy set holds no shadow pack of the purchase domain */
  shadow?: ShadowOutcome[];
}

/** The lazily evaluated policy set of one decide call. */
export interface PolicyRules {
  outcome(): PolicyOutcome;
}

/** undefined when the snapshot holds no `policy_set`: decide then runs exactly as 1.2.0 and costs nothing more. */
export function policyRulesOf(request: DecisionRequest, snapshot: DecisionSnapshot): PolicyRules | undefined {
  if (snapshot.policy_set === undefined) return undefined;
  let memo: PolicyOutcome | undefined;
  return {
    outcome: () => (memo ??= safeEvaluate(request, snapshot)),
  };
}

/**
 * A policy set that cannot even be read (a throwing getter from an in-process caller; JSON cannot do this) denies:
 * rules only narrow, so the narrowest outcome is the safe one.
 */
const UNREADABLE: PreparedRule = Object.freeze({
  rule_id: 'policy_set',
  effect: 'deny',
  reason: 'policy_set.unreadable',
  when: true,
  inProfile: true,
  obligations: [],
  stop_conditions: [],
}) as PreparedRule;

function unreadable(): PolicyOutcome {
  return { diagnostics: [], deny: UNREADABLE, obligations: [], stopConditions: [] };
}

export const UNREADABLE_POLICY_RULES: PolicyRules = Object.freeze({ outcome: unreadable });

function safeEvaluate(request: DecisionRequest, snapshot: DecisionSnapshot): PolicyOutcome {
  try {
    return evaluate(request, snapshot);
  } catch {
    return unreadable();
  }
}

function evaluate(request: DecisionRequest, snapshot: DecisionSnapshot): PolicyOutcome {
  const set: unknown = snapshot.policy_set;
  const entries: unknown[] = isRecord(set) && Array.isArray(set.packs) ? set.packs : [];
  const dictionaries = isRecord(set) && isRecord(set.dictionaries) ? set.dictionaries : undefined;
  const facts = ruleFacts(snapshot);
  const outcome: PolicyOutcome = { diagnostics: [], obligations: [], stopConditions: [] };
  const seenObligations = new Set<string>();
  for (const entry of entries) {
    if (!isRecord(entry) || (entry.mode !== 'enforce' && entry.mode !== 'shadow')) continue;
    const pack = preparePack(entry.document);
    if (pack.domain !== 'purchase') continue;
    const context = { request, facts, dict: ruleDict(pack.dictionaries, dictionaries as never) };
    const matches = matchPack(pack, context);
    if (entry.mode === 'shadow') {
      const alone = purchaseOutcome(matches);
      const shadow: ShadowOutcome = { pack_id: pack.pack_id, version: pack.version, effect: alone.effect };
      if (alone.reason !== undefined) shadow.reason = alone.reason;
      (outcome.shadow ??= []).push(shadow);
      continue;
    }
    for (const match of matches) {
      const rule = match.rule;
      outcome.diagnostics.push(ruleDiagnostic(pack.pack_id, pack.version, match));
      if (rule.effect === 'deny') outcome.deny ??= rule;
      else if (rule.effect === 'require_approval') outcome.approval ??= rule;
      for (const obligation of rule.obligations) {
        const key = canonicalJson(obligation);
        if (seenObligations.has(key)) continue;
        seenObligations.add(key);
        outcome.obligations.push(obligation);
      }
      for (const stop of rule.stop_conditions) {
        if (!outcome.stopConditions.includes(stop)) outcome.stopConditions.push(stop);
      }
    }
  }
  return outcome;
}
