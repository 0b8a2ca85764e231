/**
 * The one value a rule reads (CONTRACT section 19): `{ request, facts, dict }`. Built from the decision's request
 * and snapshot only, so replay rebuilds it exactly; nothing else (no clock, no store) is reachable from a rule.
 */
import { isRecord } from '../decide/guards.ts';
import type { DecisionRequest, DecisionSnapshot } from '../decide/types.ts';
import { DICTIONARY_PREFIX, parseReference } from './names.ts';
import type { DictionarySnapshot } from './types.ts';

export interface RuleFacts {
  principal: unknown;
  actor: unknown;
  instrument: unknown;
  merchant: { merchant_id: unknown; category: unknown; jurisdiction: unknown; state: unknown } | null;
  counters: unknown;
  local_time: unknown;
}

export type RuleDict = Record<string, { codes: string[]; terms: DictionarySnapshot['terms'] }>;

export interface RuleContext {
  request: DecisionRequest;
  facts: RuleFacts;
  dict: RuleDict;
}

/** `facts` of the context. Tolerates any snapshot shape (a missing member reads as null). */
export function ruleFacts(snapshot: DecisionSnapshot): RuleFacts {
  const snap: Record<string, unknown> = isRecord(snapshot) ? snapshot : {};
  const merchant = snap.merchant;
  const facts = isRecord(snap.facts) ? snap.facts : {};
  return {
    principal: snap.principal ?? null,
    actor: snap.actor ?? null,
    instrument: snap.instrument ?? null,
    merchant: isRecord(merchant)
      ? {
          merchant_id: merchant.merchant_id ?? null,
          category: merchant.category ?? null,
          jurisdiction: merchant.jurisdiction ?? null,
          state: merchant.state ?? null,
        }
      : null,
    counters: facts.counters ?? null,
    local_time: facts.local_time ?? null,
  };
}

/**
 * `dict` for a pack declaring `refs` (`ns:dictionary:<name>@<version>`): each declared dictionary found in
 * `dictionaries` under its name and at the declared version. One the snapshot lacks is absent (a rule reading it
 * reads null).
 */
export function ruleDict(refs: unknown, dictionaries: Record<string, DictionarySnapshot> | undefined): RuleDict {
  const dict: RuleDict = {};
  if (!Array.isArray(refs) || !isRecord(dictionaries)) return dict;
  for (const ref of refs) {
    const parsed = parseReference(ref, DICTIONARY_PREFIX);
    if (!parsed || !Object.hasOwn(dictionaries, parsed.name)) continue;
    const snapshot = dictionaries[parsed.name];
    if (!isRecord(snapshot) || snapshot.version !== parsed.version) continue;
    dict[parsed.name] = { codes: snapshot.codes, terms: snapshot.terms };
  }
  return dict;
}

/**
 * The whole context for rules reading `dictionaries` (by name: every one given is included, whatever pack reads
 * it). decide builds `facts` once per call and `dict` per pack from the pack's own declarations.
 */
export function buildRuleContext(
  request: DecisionRequest,
  snapshot: DecisionSnapshot,
  dictionaries: Record<string, DictionarySnapshot> = {},
): RuleContext {
  const dict: RuleDict = {};
  for (const [name, snap] of Object.entries(dictionaries)) dict[name] = { codes: snap.codes, terms: snap.terms };
  return { request, facts: ruleFacts(snapshot), dict };
}
