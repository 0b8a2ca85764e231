/**
 * The fields of a grant scope, grouped by how they narrow (CONTRACT section 5), and their shape check.
 * INVARIANT: a scope that passed `findMalformedScopeFields` holds only well-formed values in these fields, so the
 * later checks read them without guards.
 */
import { isPurchaseAction } from './action-from-subject.ts';
import { isMinorMoney, isNonNegativeSafeInteger, isRecord, isStringArray, ownValue } from './guards.ts';
import { parseInstant } from './instant.ts';
import type { GrantScope } from './types.ts';

export const MONEY_FIELDS = ['max_amount_per_purchase', 'max_daily_amount', 'requires_approval_above'] as const;
export type MoneyField = (typeof MONEY_FIELDS)[number];

/** Lists a child may only shrink. */
export const ALLOWED_LIST_FIELDS = ['allowed_merchant_categories', 'allowed_jurisdictions', 'allowed_actions'] as const;
export type AllowedListField = (typeof ALLOWED_LIST_FIELDS)[number];

/** Names of malformed fields of a scope; an unknown field is ignored (forward compatibility of stored snapshots). */
export function findMalformedScopeFields(scope: unknown): string[] {
  if (!isRecord(scope)) return ['scope'];
  const bad: string[] = [];
  for (const key of MONEY_FIELDS) if (present(scope, key) && !isMinorMoney(scope[key])) bad.push(key);
  for (const key of LIST_FIELDS) {
    if (present(scope, key) && !isStringArray(scope[key])) bad.push(key);
  }
  const actions = ownValue(scope, 'allowed_actions');
  if (actions !== undefined && !(Array.isArray(actions) && actions.every(isPurchaseAction)))
    bad.push('allowed_actions');
  if (present(scope, 'valid_until') && parseInstant(scope.valid_until) === undefined) bad.push('valid_until');
  if (present(scope, 'may_delegate') && typeof scope.may_delegate !== 'boolean') bad.push('may_delegate');
  if (present(scope, 'max_delegation_depth') && !isNonNegativeSafeInteger(scope.max_delegation_depth)) {
    bad.push('max_delegation_depth');
  }
  return bad;
}

const KNOWN_FIELDS: readonly string[] = [
  ...MONEY_FIELDS,
  'allowed_merchant_categories',
  'blocked_merchant_categories',
  'allowed_jurisdictions',
  'valid_until',
  'allowed_actions',
  'may_delegate',
  'max_delegation_depth',
];
const LIST_FIELDS: readonly string[] = [
  'allowed_merchant_categories',
  'blocked_merchant_categories',
  'allowed_jurisdictions',
];

function present(scope: Record<string, unknown>, key: string): boolean {
  return ownValue(scope, key) !== undefined;
}

/** A copy of the scope's known fields that are set; ignores unknown members and `undefined` values. */
export function knownScopeFields(scope: GrantScope): GrantScope {
  const out: Record<string, unknown> = {};
  for (const key of KNOWN_FIELDS) {
    const value = ownValue(scope, key);
    if (value !== undefined) out[key] = value;
  }
  return out as GrantScope;
}
