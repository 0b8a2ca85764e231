/**
 * The generic domain (CONTRACT section 19): packs of effects `permit` and `deny` decide requests that are not
 * purchases (the AuthZEN door). Deny overrides; default deny: `permit` only when some permit rule matched and no deny
 * rule did. A rule that cannot be evaluated counts as matched when it denies and unmatched when it permits
 * (fail closed).
 */
import { matchPack, preparePack, type RuleMatch } from './evaluate-pack.ts';
import { ruleDict } from './rule-context.ts';
import type { DictionarySnapshot, RuleDiagnostic, RulePackDocument, RuleReason } from './types.ts';

export interface GenericDecision {
  decision: 'permit' | 'deny';
  /** the first matched deny rule's reason */
  reason?: RuleReason;
  /** every matched rule, packs in order */
  rules: RuleDiagnostic[];
}

/**
 * `context` is `{ request, facts }` (any extra members are kept); `dict` is filled per pack from `dictionaries` when
 * given, else the context's own `dict` is used. Packs of another domain are skipped.
 */
export function decideGeneric(
  packs: readonly RulePackDocument[],
  context: Record<string, unknown>,
  dictionaries?: Record<string, DictionarySnapshot>,
): GenericDecision {
  const rules: RuleDiagnostic[] = [];
  let deny: RuleMatch | undefined;
  let permit = false;
  for (const doc of packs) {
    const pack = preparePack(doc);
    if (pack.domain !== 'generic') continue;
    const ctx = dictionaries ? { ...context, dict: ruleDict(pack.dictionaries, dictionaries) } : context;
    for (const match of matchPack(pack, ctx)) {
      rules.push(ruleDiagnostic(pack.pack_id, pack.version, match));
      if (match.rule.effect === 'deny') deny ??= match;
      else permit = true;
    }
  }
  if (deny) return { decision: 'deny', reason: deny.rule.reason!, rules };
  return { decision: permit ? 'permit' : 'deny', rules };
}

export function ruleDiagnostic(pack_id: string, version: string, match: RuleMatch): RuleDiagnostic {
  const diagnostic: RuleDiagnostic = {
    pack_id,
    version,
    rule_id: match.rule.rule_id,
    effect: match.rule.effect,
    matched: true,
  };
  if (match.error) diagnostic.error = true;
  return diagnostic;
}
