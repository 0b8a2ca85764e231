/**
 * Evaluates a rule of the profile with `json-logic-js` 2.0.5, the reference semantics the Python and Go evaluators
 * copy. The caller has checked the rule against the profile (checkRuleProfile): outside it, json-logic-js would run
 * operators (`log`, `method` via a dotted name) and read inherited properties the profile exists to exclude. The hot
 * path (evaluate-pack.ts) runs the same rule compiled once (compile-rule.ts, which mirrors json-logic-js exactly)
 * through the same fail-closed wrapper, evaluateCompiled.
 *
 * Fail closed: a rule whose evaluation throws counts as MATCHED, with `error` (a deny rule that cannot be evaluated
 * denies; it never silently stops protecting).
 */
import jsonLogic from 'json-logic-js';
import type { CompiledRule } from './compile-rule.ts';

export interface RuleEvaluation {
  matched: boolean;
  /** the evaluation threw: counted as matched */
  error?: true;
}

/** json-logic-js's raw answer for `expr` on `data` (the differential vectors record it). Throws what it throws. */
export function applyRule(expr: unknown, data: unknown): unknown {
  return jsonLogic.apply(expr as never, data);
}

/** JsonLogic truthiness (`jsonLogic.truthy`): JS truthiness, except that `[]` is falsy. */
export function ruleTruthy(value: unknown): boolean {
  return jsonLogic.truthy(value);
}

/** A compiled rule (or any evaluator of one) on `context`, failing closed: a throw is a match with `error`. */
export function evaluateCompiled(rule: CompiledRule, context: unknown): RuleEvaluation {
  try {
    return { matched: jsonLogic.truthy(rule(context)) };
  } catch {
    return { matched: true, error: true };
  }
}

/** The rule evaluated by json-logic-js itself (the reference), failing closed. */
export function evaluateRule(expr: unknown, context: unknown): RuleEvaluation {
  try {
    return { matched: jsonLogic.truthy(jsonLogic.apply(expr as never, context)) };
  } catch {
    return { matched: true, error: true };
  }
}
