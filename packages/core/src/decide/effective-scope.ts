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
  const blocked = scopes.flatMap((scope) => scope.blocked_merchant_categories ?? []);
  if (scopes.some((scope) => scope.blocked_merchant_categories)) out.blocked_merchant_categories = unique(blocked);
  const leaf = scopes.length - 1;
  const delegable = scopes.filter((scope) => scope.may_delegate !== undefined);
  if (delegable.length > 0) out.may_delegate = delegable.every((scope) => scope.may_delegate === true);
  // Remaining depth below the leaf: every ancestor's allowance, less the levels already used beneath it.
  let remaining: number | undefined;
  scopes.forEach((scope, i) => {
    if (scope.max_delegation_depth === undefined) return;
    const left = Math.max(0, scope.max_delegation_depth - (leaf - i));
    remaining = remaining === undefined ? left : Math.min(remaining, left);
  });
  if (remaining !== undefined) out.max_delegation_depth = remaining;
  return out;
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
