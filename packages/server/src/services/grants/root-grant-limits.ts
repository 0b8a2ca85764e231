/**
 * A root grant that can move money must end and must be bounded (AP2 and Verifiable Intent mandates always expire; so
 * do ours): `valid_until`, `max_amount_per_purchase` and `max_daily_amount` are required. A grant "can move money"
 * when its capability covers `execute` or `refund_request` (the card purchase capability, `purchase:execute`,
 * `purchase:refund_request`) and its `allowed_actions`, if given, keep one of them. Sub-delegations need not repeat
 * the fields: they inherit the root's, and a child can only narrow them (delegate-grant.ts).
 */
import { actionsCoveredBy, AarError, MONEY_MOVING_ACTIONS } from '@aar/core';
import type { StoredScope } from './grant-scope.ts';

export const ROOT_GRANT_REQUIRED_FIELDS = ['valid_until', 'max_amount_per_purchase', 'max_daily_amount'] as const;

export function canMoveMoney(capabilityId: string, scope: StoredScope): boolean {
  const covered = actionsCoveredBy(capabilityId).filter((a) => MONEY_MOVING_ACTIONS.includes(a));
  if (scope.allowed_actions === undefined) return covered.length > 0;
  return covered.some((a) => scope.allowed_actions?.includes(`purchase.${a}`));
}

/** Throws 400 `invalid_request` naming every missing field at once; returns when the grant is bounded or moves no money. */
export function assertRootGrantBounded(capabilityId: string, scope: StoredScope, base = '/scope'): void {
  if (!canMoveMoney(capabilityId, scope)) return;
  const missing = ROOT_GRANT_REQUIRED_FIELDS.filter((field) => scope[field] === undefined);
  if (missing.length === 0) return;
  throw new AarError(
    'invalid_request',
    `a root grant that can move money needs ${missing.map((f) => `\`${f}\``).join(', ')}`,
    {
      errors: missing.map((field) => ({
        path: `${base}/${field}`,
        message: 'is required for a root grant that can execute or refund (an unbounded grant is refused)',
      })),
    },
  );
}
