/**
 * ACP `delegate_payment` allowances (Agentic Commerce Protocol, schema.delegate_payment.json `$defs/Allowance`):
 * validated here member by member (the schema is small and closed: `additionalProperties: false`), each fault
 * named by its JSON pointer. Hand-written: six members, no library is needed to read them.
 * - `reason`: "one_time" (the only value ACP defines); `max_amount`: integer minor units > 0; `currency`: three
 *   lower-case letters as ACP sends them, normalised to upper case and required to be a known ISO 4217 code;
 *   `checkout_session_id`: non-empty string (at most 256 characters, a bound aar adds); `merchant_id`: non-empty,
 *   at most 256 characters (the schema's bound); `expires_at`: an RFC 3339 date-time, normalised to UTC.
 * - acpAllowanceToScope: a one-time allowance is an exact, single-use grant: max_amount_per_purchase = budget
 *   (total) = max_amount, allowed_merchants = [the aar merchant the caller mapped merchant_id to],
 *   valid_until = expires_at.
 * (containsCardNumber, mandate-card-numbers.ts: a body with a card number is refused `pan_refused` before this runs.)
 * Attacker assumption: the body is hostile JSON; nothing here echoes a value that could be a card number.
 */
import { isCurrency } from '../money/currencies.ts';
import { moneyToJson } from '../money/money-format.ts';
import type { Money } from '../money/money.ts';
import type { Ap2WireScope } from './ap2-scope.ts';
import type { MandateError } from './mandate-types.ts';

export interface AcpAllowance {
  reason: 'one_time';
  maxAmount: Money;
  /** upper-case ISO 4217 */
  currency: string;
  checkoutSessionId: string;
  merchantId: string;
  /** ISO 8601 UTC (`toISOString` form) */
  expiresAt: string;
}

export type AcpAllowanceResult = { ok: true; allowance: AcpAllowance } | { ok: false; errors: MandateError[] };

const MEMBERS = ['reason', 'max_amount', 'currency', 'checkout_session_id', 'merchant_id', 'expires_at'] as const;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const MAX_ID_LENGTH = 256;

function nonEmptyId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH;
}

/** Validates an ACP allowance object found at `path` (default `/allowance`). */
export function parseAcpAllowance(value: unknown, path = '/allowance'): AcpAllowanceResult {
  const errors: MandateError[] = [];
  const fail = (member: string, detail: string): void => {
    errors.push({ path: member === '' ? path : `${path}/${member}`, code: 'schema_invalid', detail });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail('', 'must be an object');
    return { ok: false, errors };
  }
  const a = value as Record<string, unknown>;
  for (const key of Object.keys(a)) {
    if (!(MEMBERS as readonly string[]).includes(key))
      fail(key.replaceAll('~', '~0').replaceAll('/', '~1'), 'unknown member of an ACP allowance');
  }
  for (const member of MEMBERS) if (a[member] === undefined) fail(member, 'is required');
  if (a.reason !== undefined && a.reason !== 'one_time') fail('reason', 'must be "one_time"');
  const max = a.max_amount;
  if (max !== undefined && (typeof max !== 'number' || !Number.isSafeInteger(max) || max <= 0)) {
    fail('max_amount', 'must be a positive whole number of minor units');
  }
  const currency =
    typeof a.currency === 'string' && /^[a-z]{3}$/.test(a.currency) ? a.currency.toUpperCase() : undefined;
  if (a.currency !== undefined && (currency === undefined || !isCurrency(currency))) {
    fail('currency', 'must be a lower-case ISO 4217 code (e.g. `usd`)');
  }
  if (a.checkout_session_id !== undefined && !nonEmptyId(a.checkout_session_id)) {
    fail('checkout_session_id', `must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  }
  if (a.merchant_id !== undefined && !nonEmptyId(a.merchant_id)) {
    fail('merchant_id', `must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  }
  let expiresAt: string | undefined;
  if (a.expires_at !== undefined) {
    const ms = typeof a.expires_at === 'string' && RFC3339.test(a.expires_at) ? Date.parse(a.expires_at) : NaN;
    if (Number.isNaN(ms)) fail('expires_at', 'must be an RFC 3339 date-time like `2026-02-15T18:30:00Z`');
    else expiresAt = new Date(ms).toISOString();
  }
  if (errors.length > 0 || currency === undefined || expiresAt === undefined) return { ok: false, errors };
  return {
    ok: true,
    allowance: {
      reason: 'one_time',
      maxAmount: { minor: max as number, currency },
      currency,
      checkoutSessionId: a.checkout_session_id as string,
      merchantId: a.merchant_id as string,
      expiresAt,
    },
  };
}

/**
 * The exact single-use scope of a one-time allowance. `merchant` is the aar merchant id the caller mapped
 * `merchant_id` to; `nowSeconds` refuses an allowance already expired (`expired`, at `/allowance/expires_at`).
 */
export function acpAllowanceToScope(
  allowance: AcpAllowance,
  ctx: { merchant: string; nowSeconds?: number; path?: string },
):
  | { ok: true; scope: Ap2WireScope; singleUse: true; checkoutSessionId: string }
  | { ok: false; errors: MandateError[] } {
  const path = ctx.path ?? '/allowance';
  if (ctx.nowSeconds !== undefined && Date.parse(allowance.expiresAt) <= ctx.nowSeconds * 1000) {
    return {
      ok: false,
      errors: [{ path: `${path}/expires_at`, code: 'expired', detail: 'the allowance has expired' }],
    };
  }
  let money: { amount: number; currency: string };
  try {
    money = moneyToJson(allowance.maxAmount);
  } catch {
    return {
      ok: false,
      errors: [{ path: `${path}/max_amount`, code: 'schema_invalid', detail: 'has no exact major-unit amount' }],
    };
  }
  return {
    ok: true,
    scope: {
      max_amount_per_purchase: money,
      budget: { ...money, period: 'total' },
      allowed_merchants: [ctx.merchant],
      valid_until: allowance.expiresAt,
    },
    singleUse: true,
    checkoutSessionId: allowance.checkoutSessionId,
  };
}
