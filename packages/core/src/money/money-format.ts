import { AarError } from '../errors/aar-error.ts';
import { decimalParts } from '../json/decimal-parts.ts';
import { CURRENCY_DIGITS } from './currencies.ts';
import type { Money } from './money.ts';
import { MAX_AMOUNT_SIGNIFICANT_DIGITS } from './money.ts';

/** `minor` as a decimal string of major units: 3000 EUR -> "30.00", 1500 JPY -> "1500", -5 EUR -> "-0.05". */
function majorUnitsText(m: Money): string {
  const digits = CURRENCY_DIGITS[m.currency];
  if (digits === undefined || !Number.isSafeInteger(m.minor)) {
    throw new AarError('internal', `not a valid money value: \`${m.currency}\``);
  }
  const sign = m.minor < 0 ? '-' : '';
  const abs = String(Math.abs(m.minor)).padStart(digits + 1, '0');
  return digits === 0 ? sign + abs : `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

/**
 * The JSON number of major units, exact: parsing it back with parseAmount gives `m` again.
 * Throws `invalid_amount` for the few values (fractional, more than 15 significant digits) no double holds exactly.
 */
export function toMajorUnits(m: Money): number {
  const text = majorUnitsText(m);
  const parts = decimalParts(text);
  if (parts.scale < 0 && parts.digits.length > MAX_AMOUNT_SIGNIFICANT_DIGITS) {
    throw new AarError('invalid_amount', `amount of \`${m.currency}\` has no exact json number`);
  }
  return Number(text);
}

export function moneyToJson(m: Money): { amount: number; currency: string } {
  return { amount: toMajorUnits(m), currency: m.currency };
}

/** For people and logs: "30.00 EUR", with every minor digit of the currency. */
export function formatMoney(m: Money): string {
  return `${majorUnitsText(m)} ${m.currency}`;
}
