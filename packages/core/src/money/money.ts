/**
 * Money (CONTRACT section 2): on the wire `{ amount: <major units>, currency }`, inside an integer of minor units.
 * No float arithmetic touches an amount: the decimal digits come from the shortest round-trip string of the number
 * (`Number.prototype.toString`), which is what the sender wrote whenever it wrote at most 15 significant digits.
 */
import { fieldError } from '../errors/aar-error.ts';
import { decimalParts } from '../json/decimal-parts.ts';
import { appendPointer } from '../json/json-pointer.ts';
import { CURRENCY_DIGITS, isCurrency } from './currencies.ts';

export interface Money {
  /** a safe integer of minor units (cents for EUR, yen for JPY, fils for BHD) */
  minor: number;
  /** ISO 4217 alpha-3, a key of CURRENCY_DIGITS */
  currency: string;
}

/** Beyond this a non-integer double no longer holds every decimal the sender may have meant. */
export const MAX_AMOUNT_SIGNIFICANT_DIGITS = 15;

/**
 * Validates a money amount and currency given as separate fields (`resource.amount` + `resource.currency`).
 * Throws `invalid_amount` at `amountPath` (not a number, not finite, <= 0, too many decimals for the currency,
 * more than 15 significant digits with a fraction, beyond Number.MAX_SAFE_INTEGER minor units) or
 * `unknown_currency` at `currencyPath`.
 */
export function parseAmount(amount: unknown, currency: unknown, amountPath: string, currencyPath: string): Money {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    throw fieldError('invalid_amount', amountPath, 'must be a finite number');
  }
  if (!(amount > 0)) throw fieldError('invalid_amount', amountPath, 'must be greater than zero');
  if (!isCurrency(currency)) {
    // Echo only letter codes: a digit string here might be a card number.
    const shown = typeof currency === 'string' && /^[A-Za-z]{1,8}$/.test(currency) ? ` \`${currency}\`` : '';
    throw fieldError('unknown_currency', currencyPath, `unknown currency${shown}, expected an iso 4217 code`);
  }
  const digits = CURRENCY_DIGITS[currency] as number;
  const parts = decimalParts(String(amount));
  if (-parts.scale > digits) {
    throw fieldError('invalid_amount', amountPath, `\`${currency}\` allows at most ${digits} decimals`);
  }
  if (parts.scale < 0 && parts.digits.length > MAX_AMOUNT_SIGNIFICANT_DIGITS) {
    throw fieldError('invalid_amount', amountPath, 'too many significant digits to be exact');
  }
  const minorText = parts.digits + '0'.repeat(parts.scale + digits);
  const minor = minorText.length <= 16 ? Number(minorText) : Infinity;
  if (!Number.isSafeInteger(minor)) throw fieldError('invalid_amount', amountPath, 'amount is too large');
  return { minor, currency };
}

/** Validates a money object `{ amount, currency }` at `path`; any other member is refused with `invalid_request`. */
export function parseMoney(value: unknown, path: string): Money {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fieldError('invalid_request', path, 'must be an object `{ amount, currency }`');
  }
  for (const key of Object.keys(value)) {
    if (key !== 'amount' && key !== 'currency') {
      throw fieldError('invalid_request', appendPointer(path, key), 'unknown member of a money object');
    }
  }
  const { amount, currency } = value as { amount?: unknown; currency?: unknown };
  return parseAmount(amount, currency, appendPointer(path, 'amount'), appendPointer(path, 'currency'));
}
