/**
 * A grant's scope: parsed from the wire (money in major units) into the stored form (integer minor units) and
 * back. INVARIANT: every money limit of one grant is in one currency (its `budget` included), so a request in another
 * currency can be refused (`currency_mismatch`) without ever converting. `allowed_merchants` holds merchant ids in the
 * form the merchants table and `resource.merchant_id` use (`[A-Za-z0-9._-]{1,128}`); `ns:merchant:<id>` is accepted
 * on input and stored as the plain id, so decide compares them as exact strings.
 */
import {
  BUDGET_PERIODS,
  fieldError,
  isJurisdiction,
  isLocalId,
  moneyToJson,
  parseMoney,
  type BudgetPeriod,
  type Money,
} from '@aar/core';
import { MERCHANT_CATEGORY_RE } from '../merchants/merchant-category.ts';
import { PURCHASE_ACTIONS, type PurchaseAction } from './purchase-actions.ts';

export interface StoredScope {
  max_amount_per_purchase?: Money;
  max_daily_amount?: Money;
  requires_approval_above?: Money;
  allowed_merchant_categories?: string[];
  blocked_merchant_categories?: string[];
  allowed_jurisdictions?: string[];
  valid_until?: string;
  allowed_actions?: PurchaseAction[];
  may_delegate?: boolean;
  max_delegation_depth?: number;
  /** a cumulative budget over a UTC period (minor units), enforced against this grant's subtree spend */
  budget?: StoredBudget;
  /** plain merchant ids */
  allowed_merchants?: string[];
}

export type StoredBudget = Money & { period: BudgetPeriod };

export type WireMoney = { amount: number; currency: string };
export type WireBudget = WireMoney & { period: BudgetPeriod };
export type WireScope = Omit<
  StoredScope,
  'max_amount_per_purchase' | 'max_daily_amount' | 'requires_approval_above' | 'budget'
> & {
  max_amount_per_purchase?: WireMoney;
  max_daily_amount?: WireMoney;
  requires_approval_above?: WireMoney;
  budget?: WireBudget;
};

const MERCHANT_PREFIX = 'ns:merchant:';

const MONEY_FIELDS = ['max_amount_per_purchase', 'max_daily_amount', 'requires_approval_above'] as const;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
export const MAX_DELEGATION_DEPTH = 16;
const MAX_LIST = 1000;

export function parseGrantScope(raw: Record<string, unknown>, now: Date, base = '/scope'): StoredScope {
  const scope: StoredScope = {};
  let currency: string | undefined;
  for (const field of MONEY_FIELDS) {
    if (raw[field] === undefined) continue;
    const money = parseMoney(raw[field], `${base}/${field}`);
    if (currency !== undefined && money.currency !== currency) {
      throw fieldError(
        'invalid_request',
        `${base}/${field}/currency`,
        `every limit of a grant must use one currency (\`${currency}\`)`,
      );
    }
    currency = money.currency;
    scope[field] = money;
  }
  if (raw.budget !== undefined) {
    scope.budget = parseBudget(raw.budget, `${base}/budget`);
    if (currency !== undefined && scope.budget.currency !== currency) {
      throw fieldError(
        'invalid_request',
        `${base}/budget/currency`,
        `every limit of a grant must use one currency (\`${currency}\`)`,
      );
    }
  }
  if (raw.allowed_merchants !== undefined) {
    scope.allowed_merchants = stringList(
      raw.allowed_merchants,
      `${base}/allowed_merchants`,
      (v) => isLocalId(v.startsWith(MERCHANT_PREFIX) ? v.slice(MERCHANT_PREFIX.length) : v),
      'a merchant id (`[A-Za-z0-9._-]{1,128}`, optionally as `ns:merchant:<id>`)',
      (v) => (v.startsWith(MERCHANT_PREFIX) ? v.slice(MERCHANT_PREFIX.length) : v),
    );
  }
  for (const field of ['allowed_merchant_categories', 'blocked_merchant_categories'] as const) {
    if (raw[field] === undefined) continue;
    scope[field] = stringList(
      raw[field],
      `${base}/${field}`,
      (v) => MERCHANT_CATEGORY_RE.test(v),
      'a four-digit MCC or a lower-case named category',
    );
  }
  if (raw.allowed_jurisdictions !== undefined) {
    scope.allowed_jurisdictions = stringList(
      raw.allowed_jurisdictions,
      `${base}/allowed_jurisdictions`,
      isJurisdiction,
      'an ISO 3166-1 alpha-2 code',
    );
  }
  if (raw.allowed_actions !== undefined) {
    scope.allowed_actions = stringList(
      raw.allowed_actions,
      `${base}/allowed_actions`,
      (v) => (PURCHASE_ACTIONS as readonly string[]).includes(v),
      `one of ${PURCHASE_ACTIONS.join(', ')}`,
    ) as PurchaseAction[];
  }
  if (raw.valid_until !== undefined) {
    const v = raw.valid_until;
    if (typeof v !== 'string' || !ISO_UTC.test(v) || Number.isNaN(Date.parse(v))) {
      throw fieldError(
        'invalid_request',
        `${base}/valid_until`,
        'must be an ISO 8601 UTC timestamp like `2027-01-31T23:59:59Z`',
      );
    }
    if (Date.parse(v) <= now.getTime())
      throw fieldError('invalid_request', `${base}/valid_until`, 'must be in the future');
    scope.valid_until = new Date(Date.parse(v)).toISOString();
  }
  if (raw.may_delegate !== undefined) {
    if (typeof raw.may_delegate !== 'boolean')
      throw fieldError('invalid_request', `${base}/may_delegate`, 'must be a boolean');
    scope.may_delegate = raw.may_delegate;
  }
  if (raw.max_delegation_depth !== undefined) {
    const d = raw.max_delegation_depth;
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d > MAX_DELEGATION_DEPTH) {
      throw fieldError(
        'invalid_request',
        `${base}/max_delegation_depth`,
        `must be a whole number from 0 to ${MAX_DELEGATION_DEPTH}`,
      );
    }
    scope.max_delegation_depth = d;
  }
  return scope;
}

/** `{ amount, currency, period }`: money in major units like the other limits, and one of BUDGET_PERIODS. */
function parseBudget(value: unknown, path: string): StoredBudget {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fieldError('invalid_request', path, 'must be an object `{ amount, currency, period }`');
  }
  const { period, ...money } = value as Record<string, unknown>;
  if (typeof period !== 'string' || !(BUDGET_PERIODS as readonly string[]).includes(period)) {
    throw fieldError('invalid_request', `${path}/period`, `must be one of ${BUDGET_PERIODS.join(', ')}`);
  }
  const parsed = parseMoney(money, path);
  return { minor: parsed.minor, currency: parsed.currency, period: period as BudgetPeriod };
}

/** A list without repeats; `canonical` maps an accepted spelling to the stored one (repeats are judged after it). */
function stringList(
  value: unknown,
  path: string,
  valid: (v: string) => boolean,
  what: string,
  canonical: (v: string) => string = (v) => v,
): string[] {
  if (!Array.isArray(value)) throw fieldError('invalid_request', path, 'must be an array of strings');
  if (value.length > MAX_LIST) throw fieldError('invalid_request', path, `must have at most ${MAX_LIST} items`);
  const seen = new Set<string>();
  value.forEach((item, i) => {
    if (typeof item !== 'string' || !valid(item))
      throw fieldError('invalid_request', `${path}/${i}`, `must be ${what}`);
    const stored = canonical(item);
    if (seen.has(stored)) throw fieldError('invalid_request', `${path}/${i}`, `\`${stored}\` is listed twice`);
    seen.add(stored);
  });
  return [...seen];
}

export function scopeToWire(scope: StoredScope): WireScope {
  const { max_amount_per_purchase, max_daily_amount, requires_approval_above, budget, ...rest } = scope;
  const wire: WireScope = { ...rest };
  if (budget) wire.budget = { ...moneyToJson(budget), period: budget.period };
  if (max_amount_per_purchase) wire.max_amount_per_purchase = moneyToJson(max_amount_per_purchase);
  if (max_daily_amount) wire.max_daily_amount = moneyToJson(max_daily_amount);
  if (requires_approval_above) wire.requires_approval_above = moneyToJson(requires_approval_above);
  return wire;
}
