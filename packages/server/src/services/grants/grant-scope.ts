/**
 * A grant's scope: parsed from the wire (money in major units) into the stored form (integer minor units) and
 * back. INVARIANT: every money limit of one grant is in one currency, so a request in another currency can be
 * refused (`currency_mismatch`) without ever converting.
 */
import { fieldError, isJurisdiction, moneyToJson, parseMoney, type Money } from '@aar/core';
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
}

export type WireMoney = { amount: number; currency: string };
export type WireScope = Omit<
  StoredScope,
  'max_amount_per_purchase' | 'max_daily_amount' | 'requires_approval_above'
> & {
  max_amount_per_purchase?: WireMoney;
  max_daily_amount?: WireMoney;
  requires_approval_above?: WireMoney;
};

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

function stringList(value: unknown, path: string, valid: (v: string) => boolean, what: string): string[] {
  if (!Array.isArray(value)) throw fieldError('invalid_request', path, 'must be an array of strings');
  if (value.length > MAX_LIST) throw fieldError('invalid_request', path, `must have at most ${MAX_LIST} items`);
  const seen = new Set<string>();
  value.forEach((item, i) => {
    if (typeof item !== 'string' || !valid(item))
      throw fieldError('invalid_request', `${path}/${i}`, `must be ${what}`);
    if (seen.has(item)) throw fieldError('invalid_request', `${path}/${i}`, `\`${item}\` is listed twice`);
    seen.add(item);
  });
  return [...seen];
}

export function scopeToWire(scope: StoredScope): WireScope {
  const { max_amount_per_purchase, max_daily_amount, requires_approval_above, ...rest } = scope;
  const wire: WireScope = { ...rest };
  if (max_amount_per_purchase) wire.max_amount_per_purchase = moneyToJson(max_amount_per_purchase);
  if (max_daily_amount) wire.max_daily_amount = moneyToJson(max_daily_amount);
  if (requires_approval_above) wire.requires_approval_above = moneyToJson(requires_approval_above);
  return wire;
}
