/**
 * The authority a chain actually conveys: the intersection of every link's scope (lowest amounts, earliest
 * `valid_until`, intersected allowed lists, unioned blocked lists; aar-decide/1.4.0: the lowest `budget` with its
 * period, `allowed_merchants` intersected). Preconditions: every scope is well-formed
 * (`findMalformedScopeFields` is empty) and the chain is nested, so money limits of one field share a currency.
 * Lists keep the order of their first appearance, root first, so the result is deterministic.
 */
import { compareInstants, parseInstant, type Instant } from './instant.ts';
import type { AllowedListField, MoneyField } from './scope-fields.ts';
import type { Budget, GrantScope, MinorMoney, PurchaseAction } from './types.ts';

export function computeEffectiveScope(scopes: readonly GrantScope[]): GrantScope {
  // Each field is written by name, in the order of the result's keys (a loop over key names writing `out[key]`
  // costs more than the rest of this function).
  const out: GrantScope = {};
  const perPurchase = lowestLimit(scopes, 'max_amount_per_purchase');
  if (perPurchase) out.max_amount_per_purchase = perPurchase;
  const daily = lowestLimit(scopes, 'max_daily_amount');
  if (daily) out.max_daily_amount = daily;
  const approvalAbove = lowestLimit(scopes, 'requires_approval_above');
  if (approvalAbove) out.requires_approval_above = approvalAbove;
  const validUntil = earliestValidUntil(scopes);
  if (validUntil !== undefined) out.valid_until = validUntil;
  const categories = intersectAllowed(scopes, 'allowed_merchant_categories');
  if (categories) out.allowed_merchant_categories = categories;
  const jurisdictions = intersectAllowed(scopes, 'allowed_jurisdictions');
  if (jurisdictions) out.allowed_jurisdictions = jurisdictions;
  const actions = intersectAllowed(scopes, 'allowed_actions');
  if (actions) out.allowed_actions = actions as PurchaseAction[];
  const blocked = unionBlocked(scopes);
  if (blocked) out.blocked_merchant_categories = blocked;
  const budget = lowestBudget(scopes);
  if (budget) out.budget = budget;
  const merchants = intersectAllowed(scopes, 'allowed_merchants');
  if (merchants) out.allowed_merchants = merchants;
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

/** A copy of the lowest limit of the field; the first among equals. */
function lowestLimit(scopes: readonly GrantScope[], key: MoneyField): MinorMoney | undefined {
  let lowest: MinorMoney | undefined;
  for (const scope of scopes) {
    const value = scope[key];
    if (value && (!lowest || value.minor < lowest.minor)) lowest = value;
  }
  return lowest && { minor: lowest.minor, currency: lowest.currency };
}

/** A copy of the lowest budget (its own period kept); the first among equals. */
function lowestBudget(scopes: readonly GrantScope[]): Budget | undefined {
  let lowest: Budget | undefined;
  for (const scope of scopes) {
    const value = scope.budget;
    if (value && (!lowest || value.minor < lowest.minor)) lowest = value;
  }
  return lowest && { minor: lowest.minor, currency: lowest.currency, period: lowest.period };
}

/** The text of the earliest `valid_until`, compared as instants; the first among equal instants. */
function earliestValidUntil(scopes: readonly GrantScope[]): string | undefined {
  let text: string | undefined;
  let earliest: Instant | undefined;
  for (const scope of scopes) {
    const at = parseInstant(scope.valid_until);
    if (at && scope.valid_until && (!earliest || compareInstants(at, earliest) < 0)) {
      text = scope.valid_until;
      earliest = at;
    }
  }
  return text;
}

/** The items every scope that sets the list allows, without repeats, in the order of the first such scope. */
function intersectAllowed(scopes: readonly GrantScope[], key: AllowedListField): string[] | undefined {
  let kept: string[] | undefined;
  for (const scope of scopes) {
    const list: readonly string[] | undefined = scope[key];
    if (list) kept = kept ? keepIncluded(kept, list) : unique(list);
  }
  return kept;
}

/** Every scope's blocked categories, without repeats, root first. */
function unionBlocked(scopes: readonly GrantScope[]): string[] | undefined {
  let blocked: readonly string[] | undefined;
  for (const scope of scopes) {
    const list = scope.blocked_merchant_categories;
    if (list) blocked = blocked ? blocked.concat(list) : list;
  }
  return blocked && unique(blocked);
}

/** The items of `items` that `list` holds, in order. */
function keepIncluded(items: readonly string[], list: readonly string[]): string[] {
  const out: string[] = [];
  for (const item of items) if (list.includes(item)) out.push(item);
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
