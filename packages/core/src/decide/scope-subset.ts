/**
 * INVARIANT: child ⊆ parent (CONTRACT section 5). The child's own fields are compared with the parent's inherited
 * (effective) scope; an omitted field inherits and so never widens. Both scopes must be well-formed.
 */
import { compareInstants, parseInstant, type Instant } from './instant.ts';
import { ALLOWED_LIST_FIELDS, MONEY_FIELDS } from './scope-fields.ts';
import type { GrantScope } from './types.ts';

/** The scope a grant holds: its own fields over its parent's effective scope. */
export function inheritScope(parentEffective: GrantScope | undefined, own: GrantScope): GrantScope {
  return { ...(parentEffective ?? {}), ...own };
}

/** Every field in which `child` is wider than `parentEffective`; empty when the child is a subset. */
export function findWiderFields(child: GrantScope, parentEffective: GrantScope): string[] {
  const wider: string[] = [];
  for (const key of MONEY_FIELDS) {
    const c = child[key];
    const p = parentEffective[key];
    if (c && p && (c.currency !== p.currency || c.minor > p.minor)) wider.push(key);
  }
  // aar-decide/1.4.0: a budget is no larger than the parent's (same currency), whatever the two periods
  const cbudget = child.budget;
  const pbudget = parentEffective.budget;
  if (cbudget && pbudget && (cbudget.currency !== pbudget.currency || cbudget.minor > pbudget.minor)) {
    wider.push('budget');
  }
  if (child.valid_until !== undefined && parentEffective.valid_until !== undefined) {
    const c = parseInstant(child.valid_until) as Instant;
    const p = parseInstant(parentEffective.valid_until) as Instant;
    if (compareInstants(c, p) > 0) wider.push('valid_until');
  }
  for (const key of ALLOWED_LIST_FIELDS) {
    const c: readonly string[] | undefined = child[key];
    const p: readonly string[] | undefined = parentEffective[key];
    if (c && p && !c.every((item) => p.includes(item))) wider.push(key);
  }
  const cb = child.blocked_merchant_categories;
  const pb = parentEffective.blocked_merchant_categories;
  if (cb && pb && !pb.every((item) => cb.includes(item))) wider.push('blocked_merchant_categories');
  if (child.may_delegate === true && parentEffective.may_delegate === false) wider.push('may_delegate');
  const cd = child.max_delegation_depth;
  const pd = parentEffective.max_delegation_depth;
  // The child sits one level below: it may allow at most one level less than its parent.
  if (cd !== undefined && pd !== undefined && cd > pd - 1) wider.push('max_delegation_depth');
  return wider;
}
