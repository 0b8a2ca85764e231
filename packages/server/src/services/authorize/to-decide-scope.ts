import type { GrantScope, PurchaseAction } from '@aar/core';
import type { StoredScope } from '../grants/grant-scope.ts';

/**
 * The stored scope in decide's terms: the same money (minor units; `budget` keeps its period), actions without their
 * `purchase.` prefix, merchant ids as stored (plain).
 */
export function toDecideScope(stored: StoredScope): GrantScope {
  const { allowed_actions, ...rest } = stored;
  const scope: GrantScope = { ...rest };
  if (allowed_actions)
    scope.allowed_actions = allowed_actions.map((a) => a.slice('purchase.'.length) as PurchaseAction);
  return scope;
}
