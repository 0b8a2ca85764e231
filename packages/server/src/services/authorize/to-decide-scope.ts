import type { GrantScope, PurchaseAction } from '@aar/core';
import type { StoredScope } from '../grants/grant-scope.ts';

/** The stored scope in decide's terms: the same money (minor units), actions without their `purchase.` prefix. */
export function toDecideScope(stored: StoredScope): GrantScope {
  const { allowed_actions, ...rest } = stored;
  const scope: GrantScope = { ...rest };
  if (allowed_actions)
    scope.allowed_actions = allowed_actions.map((a) => a.slice('purchase.'.length) as PurchaseAction);
  return scope;
}
