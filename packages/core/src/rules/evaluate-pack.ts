/**
 * A pack's rules, read once per document object and evaluated on a context. Shared by decide (enforce and shadow
 * packs), runPackTests and decideGeneric, so a pack's tests exercise exactly what decide does.
 *
 * Attacker assumption: a pack document in a snapshot was signed and profile-checked at publish, but a replayed
 * snapshot may have been edited (evidence verification then fails on its signature). Reading never throws; a rule
 * that cannot act (not an object, an effect its domain does not allow, a deciding effect without a
 * `<name>.<code>` reason) is ignored; a rule whose `when` is outside the profile is never handed to json-logic-js
 * (nor compiled) and counts as an evaluation error, matched for narrowing effects (fail closed) and unmatched for
 * `permit`. A `when` inside the profile is compiled once, when its pack is prepared (compile-rule.ts mirrors
 * json-logic-js exactly); should compiling fail, that rule is evaluated by json-logic-js itself, never weaker.
 */
import { isRecord } from '../decide/guards.ts';
import { compileRule, type CompiledRule } from './compile-rule.ts';
import { applyRule, evaluateCompiled, evaluateRule } from './evaluate-rule.ts';
import { packNameOf } from './names.ts';
import { checkRuleProfile } from './profile.ts';
import type { PackDomain, RuleEffect, RuleObligation, RuleReason } from './types.ts';

export interface PreparedRule {
  rule_id: string;
  effect: RuleEffect;
  reason?: RuleReason;
  when: unknown;
  inProfile: boolean;
  /**
   * `when` compiled (json-logic-js's exact answer), set when it is inside the profile; a rule built without it (an
   * in-process constant) is evaluated by json-logic-js.
   */
  evaluate?: CompiledRule;
  obligations: RuleObligation[];
  stop_conditions: string[];
}

export interface PreparedPack {
  pack_id: string;
  version: string;
  name: string | undefined;
  domain: PackDomain | undefined;
  dictionaries: unknown;
  rules: PreparedRule[];
}

export interface RuleMatch {
  rule: PreparedRule;
  error?: true;
}

const EFFECTS: Record<PackDomain, readonly RuleEffect[]> = {
  purchase: ['deny', 'require_approval', 'obligate'],
  generic: ['permit', 'deny'],
};

const prepared = new WeakMap<object, PreparedPack>();

/** The pack read for evaluation; memoised per document object (the server reuses its cached policy set's objects). */
export function preparePack(doc: unknown): PreparedPack {
  if (!isRecord(doc)) return EMPTY_PACK;
  const cached = prepared.get(doc);
  if (cached) return cached;
  let pack: PreparedPack;
  try {
    pack = read(doc);
  } catch {
    pack = EMPTY_PACK;
  }
  prepared.set(doc, pack);
  return pack;
}

const EMPTY_PACK: PreparedPack = Object.freeze({
  pack_id: '',
  version: '',
  name: undefined,
  domain: undefined,
  dictionaries: [],
  rules: [],
}) as PreparedPack;

function read(doc: Record<string, unknown>): PreparedPack {
  const domain = doc.domain === 'purchase' || doc.domain === 'generic' ? doc.domain : undefined;
  const rules: PreparedRule[] = [];
  if (domain !== undefined && Array.isArray(doc.rules)) {
    for (const rule of doc.rules) {
      const ready = readRule(rule, domain);
      if (ready) rules.push(ready);
    }
  }
  return {
    pack_id: typeof doc.pack_id === 'string' ? doc.pack_id : '',
    version: typeof doc.version === 'string' ? doc.version : '',
    name: packNameOf(doc),
    domain,
    dictionaries: doc.dictionaries,
    rules,
  };
}

function readRule(rule: unknown, domain: PackDomain): PreparedRule | undefined {
  if (!isRecord(rule) || typeof rule.rule_id !== 'string') return undefined;
  const effect = rule.effect as RuleEffect;
  if (!EFFECTS[domain].includes(effect)) return undefined;
  const ready: PreparedRule = {
    rule_id: rule.rule_id,
    effect,
    when: rule.when,
    inProfile: 'when' in rule && checkRuleProfile(rule.when, '').length === 0,
    obligations: Array.isArray(rule.obligations)
      ? (rule.obligations.filter((o) => isRecord(o) && typeof o.type === 'string') as RuleObligation[])
      : [],
    stop_conditions: Array.isArray(rule.stop_conditions)
      ? rule.stop_conditions.filter((s): s is string => typeof s === 'string')
      : [],
  };
  if (effect === 'deny' || effect === 'require_approval') {
    if (typeof rule.reason !== 'string' || rule.reason.indexOf('.') <= 0) return undefined;
    ready.reason = rule.reason as RuleReason;
  }
  if (ready.inProfile) ready.evaluate = compiled(ready.when);
  return ready;
}

/** The compiled `when`, or json-logic-js on it where the compiler refuses it (never weaker than the reference). */
function compiled(when: unknown): CompiledRule {
  try {
    return compileRule(when);
  } catch {
    return (data) => applyRule(when, data);
  }
}

/** Every matched rule of the pack, in rule order. */
export function matchPack(pack: PreparedPack, context: unknown): RuleMatch[] {
  const matches: RuleMatch[] = [];
  for (const rule of pack.rules) {
    const evaluation = !rule.inProfile
      ? ({ matched: true, error: true } as const)
      : rule.evaluate !== undefined
        ? evaluateCompiled(rule.evaluate, context)
        : evaluateRule(rule.when, context);
    if (evaluation.error) {
      // fail closed: an error narrows (deny, require_approval, obligate) and never permits
      if (rule.effect !== 'permit') matches.push({ rule, error: true });
    } else if (evaluation.matched) {
      matches.push({ rule });
    }
  }
  return matches;
}

/** What a purchase pack alone would decide: first deny, else first require_approval, else obligate, else none. */
export function purchaseOutcome(matches: readonly RuleMatch[]): {
  effect: 'deny' | 'require_approval' | 'obligate' | 'none';
  reason?: RuleReason;
} {
  const deny = matches.find((m) => m.rule.effect === 'deny');
  if (deny) return { effect: 'deny', reason: deny.rule.reason! };
  const approval = matches.find((m) => m.rule.effect === 'require_approval');
  if (approval) return { effect: 'require_approval', reason: approval.rule.reason! };
  return { effect: matches.some((m) => m.rule.effect === 'obligate') ? 'obligate' : 'none' };
}

/** What a generic pack alone would decide: any deny (its first reason), else permit when one matched, else none. */
export function genericOutcome(matches: readonly RuleMatch[]): {
  effect: 'deny' | 'permit' | 'none';
  reason?: RuleReason;
} {
  const deny = matches.find((m) => m.rule.effect === 'deny');
  if (deny) return { effect: 'deny', reason: deny.rule.reason! };
  return { effect: matches.some((m) => m.rule.effect === 'permit') ? 'permit' : 'none' };
}
