/**
 * The authority a chain actually conveys: the intersection of every link's scope (lowest amounts, earliest
 * `valid_until`, intersected allowed lists, unioned blocked lists). Preconditions: every scope is well-formed
 * (`findMalformedScopeFields` is empty) and the chain is nested, so money limits of one field share a currency.
 * Lists keep the order of their first appearance, root first, so the result is deterministic.
 */
import { compareInstants, parseInstant, type Instant } from './instant.ts';
import { ALLOWED_LIST_FIELDS, MONEY_FIELDS } from './scope-fields.ts';
import type { GrantScope, MinorMoney } from './types.ts';

export function computeEffectiveScope(scopes: readonly GrantScope[]): GrantScope {
  const out: GrantScope = {};
  for (const key of MONEY_FIELDS) {
    let lowest: MinorMoney | undefined;
    for (const scope of scopes) {
      const value = scope[key];
      if (value && (!lowest || value.minor < lowest.minor)) lowest = value;
    }
    if (lowest) out[key] = { minor: lowest.minor, currency: lowest.currency };
  }
  let earliest: { text: string; at: Instant } | undefined;
  for (const scope of scopes) {
    const at = parseInstant(scope.valid_until);
    if (at && scope.valid_until && (!earliest || compareInstants(at, earliest.at) < 0)) {
      earliest = { text: scope.valid_until, at };
    }
  }
  if (earliest) out.valid_until = earliest.text;
  for (const key of ALLOWED_LIST_FIELDS) {
    let kept: string[] | undefined;
    for (const scope of scopes) {
      const list: readonly string[] | undefined = scope[key];
      if (list) kept = unique(kept ? kept.filter((item) => list.includes(item)) : list);
    }
    if (kept) (out as Record<string, unknown>)[key] = kept;
  }
  let blocked: string[] | undefined;
  for (const scope of scopes) {
    const list = scope.blocked_merchant_categories;
    if (list) blocked = blocked ? blocked.concat(list) : list.slice();
  }
  if (blocked) out.blocked_merchant_categories = unique(blocked);
  const leaf = scopes.length - 1;
  let mayDelegate: boolean | undefined;
  // Remaining depth below the leaf: every ancestor's allowance, less the levels already used beneath it.
  let remaining: number | undefined;
  for (let i = 0; i <= leaf; i++) {
    const scope = scopes[i]!;
    if (scope.may_delegate !== undefined) mayDelegate = (mayDelegate ?? true) && scope.may_delegate === true;
    if (scope.max_delegation_depth === undefined) continue;
    const left = Math.max(0, scope.max_delegation_depth - (leaf - i));
    remaining = remaining === undefined ? left : Math.min(remaining, left);
  }
  if (mayDelegate !== undefined) out.may_delegate = mayDelegate;
  if (remaining !== undefined) out.max_delegation_depth = remaining;
  return out;
}

/** The items without repeats, first appearance kept; a copy (the result is the caller's to keep). */
function unique(items: readonly string[]): string[] {
  // scopes hold short lists: a scan beats building a Set; a long (hostile, replayed) list takes the Set
  if (items.length > 32) return [...new Set(items)];
  const out: string[] = [];
  for (const item of items) if (!out.includes(item)) out.push(item);
  return out;
}
