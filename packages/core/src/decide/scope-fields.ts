/**
 * The fields of a grant scope, grouped by how they narrow (CONTRACT section 5), and their shape check.
 * INVARIANT: a scope whose known fields passed `findMalformedFields` holds only well-formed values in these fields, so
 * the later checks read them without guards.
 */
import { isPurchaseAction } from './action-from-subject.ts';
import { isMinorMoney, isNonNegativeSafeInteger, isRecord, isStringArray } from './guards.ts';
import { parseInstant } from './instant.ts';
import type { Budget, GrantScope } from './types.ts';

export const MONEY_FIELDS = ['max_amount_per_purchase', 'max_daily_amount', 'requires_approval_above'] as const;
export type MoneyField = (typeof MONEY_FIELDS)[number];

/** Lists a child may only shrink (`allowed_merchants`: aar-decide/1.4.0). */
export const ALLOWED_LIST_FIELDS = [
  'allowed_merchant_categories',
  'allowed_jurisdictions',
  'allowed_actions',
  'allowed_merchants',
] as const;
export type AllowedListField = (typeof ALLOWED_LIST_FIELDS)[number];

/** aar-decide/1.4.0: the periods a `budget` counts over. */
export const BUDGET_PERIODS = ['day', 'week', 'month', 'year', 'total'] as const;

/** `{ minor, currency, period }`: a well-formed money value with a known period. */
export function isBudget(value: unknown): value is Budget {
  return isMinorMoney(value) && (BUDGET_PERIODS as readonly unknown[]).includes((value as { period?: unknown }).period);
}

/** A scope's known fields as read from input, not yet checked. */
export type UncheckedScope = { [K in keyof GrantScope]?: unknown };

/** Names of malformed fields of a scope; an unknown field is ignored (forward compatibility of stored snapshots). */
export function findMalformedScopeFields(scope: unknown): string[] {
  return isRecord(scope) ? findMalformedFields(knownScopeFields(scope)) : ['scope'];
}

/**
 * A copy of the scope's known fields that are set: each read once, as an own property only (`__proto__` or
 * `constructor` in JSON must not resolve); a field holding `undefined` counts as absent; unknown members are left out.
 * The names are written out rather than looped over: each read and write is then a plain property access, which is
 * most of decide's time otherwise. `{}` when the scope is not an object.
 */
export function knownScopeFields(scope: unknown): UncheckedScope {
  const out: UncheckedScope = {};
  if (!isRecord(scope)) return out;
  const maxAmountPerPurchase = Object.hasOwn(scope, 'max_amount_per_purchase')
    ? scope.max_amount_per_purchase
    : undefined;
  const maxDailyAmount = Object.hasOwn(scope, 'max_daily_amount') ? scope.max_daily_amount : undefined;
  const requiresApprovalAbove = Object.hasOwn(scope, 'requires_approval_above')
    ? scope.requires_approval_above
    : undefined;
  const allowedMerchantCategories = Object.hasOwn(scope, 'allowed_merchant_categories')
    ? scope.allowed_merchant_categories
    : undefined;
  const blockedMerchantCategories = Object.hasOwn(scope, 'blocked_merchant_categories')
    ? scope.blocked_merchant_categories
    : undefined;
  const allowedJurisdictions = Object.hasOwn(scope, 'allowed_jurisdictions') ? scope.allowed_jurisdictions : undefined;
  const validUntil = Object.hasOwn(scope, 'valid_until') ? scope.valid_until : undefined;
  const allowedActions = Object.hasOwn(scope, 'allowed_actions') ? scope.allowed_actions : undefined;
  const mayDelegate = Object.hasOwn(scope, 'may_delegate') ? scope.may_delegate : undefined;
  const maxDelegationDepth = Object.hasOwn(scope, 'max_delegation_depth') ? scope.max_delegation_depth : undefined;
  const budget = Object.hasOwn(scope, 'budget') ? scope.budget : undefined;
  const allowedMerchants = Object.hasOwn(scope, 'allowed_merchants') ? scope.allowed_merchants : undefined;
  if (maxAmountPerPurchase !== undefined) out.max_amount_per_purchase = maxAmountPerPurchase;
  if (maxDailyAmount !== undefined) out.max_daily_amount = maxDailyAmount;
  if (requiresApprovalAbove !== undefined) out.requires_approval_above = requiresApprovalAbove;
  if (allowedMerchantCategories !== undefined) out.allowed_merchant_categories = allowedMerchantCategories;
  if (blockedMerchantCategories !== undefined) out.blocked_merchant_categories = blockedMerchantCategories;
  if (allowedJurisdictions !== undefined) out.allowed_jurisdictions = allowedJurisdictions;
  if (validUntil !== undefined) out.valid_until = validUntil;
  if (allowedActions !== undefined) out.allowed_actions = allowedActions;
  if (mayDelegate !== undefined) out.may_delegate = mayDelegate;
  if (maxDelegationDepth !== undefined) out.max_delegation_depth = maxDelegationDepth;
  if (budget !== undefined) out.budget = budget;
  if (allowedMerchants !== undefined) out.allowed_merchants = allowedMerchants;
  return out;
}

/** Names of the malformed fields among a scope's known fields, in the order the contract lists them. */
export function findMalformedFields(fields: UncheckedScope): string[] {
  const bad: string[] = [];
  if (isSetBut(fields.max_amount_per_purchase, isMinorMoney)) bad.push('max_amount_per_purchase');
  if (isSetBut(fields.max_daily_amount, isMinorMoney)) bad.push('max_daily_amount');
  if (isSetBut(fields.requires_approval_above, isMinorMoney)) bad.push('requires_approval_above');
  if (isSetBut(fields.allowed_merchant_categories, isStringArray)) bad.push('allowed_merchant_categories');
  if (isSetBut(fields.blocked_merchant_categories, isStringArray)) bad.push('blocked_merchant_categories');
  if (isSetBut(fields.allowed_jurisdictions, isStringArray)) bad.push('allowed_jurisdictions');
  if (isSetBut(fields.allowed_actions, isActionList)) bad.push('allowed_actions');
  if (isSetBut(fields.valid_until, isTimestamp)) bad.push('valid_until');
  if (isSetBut(fields.may_delegate, isBoolean)) bad.push('may_delegate');
  if (isSetBut(fields.max_delegation_depth, isNonNegativeSafeInteger)) bad.push('max_delegation_depth');
  if (isSetBut(fields.budget, isBudget)) bad.push('budget');
  if (isSetBut(fields.allowed_merchants, isStringArray)) bad.push('allowed_merchants');
  return bad;
}

function isSetBut(value: unknown, isWellFormed: (value: unknown) => boolean): boolean {
  return value !== undefined && !isWellFormed(value);
}

function isActionList(value: unknown): boolean {
  return Array.isArray(value) && value.every(isPurchaseAction);
}

function isTimestamp(value: unknown): boolean {
  return parseInstant(value) !== undefined;
}

function isBoolean(value: unknown): boolean {
  return typeof value === 'boolean';
}
