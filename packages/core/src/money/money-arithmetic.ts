import { AarError } from '../errors/aar-error.ts';
import type { Money } from './money.ts';

/**
 * The service never converts currencies (CONTRACT section 2): callers compare currencies first and decide
 * `currency_mismatch`; reaching here with two currencies is a programming error, hence `internal`.
 */
function assertSameCurrency(a: Money, b: Money): void {
  if (a.currency !== b.currency) {
    throw new AarError('internal', `currency mismatch: \`${a.currency}\` and \`${b.currency}\``);
  }
}

/** Exact sum; throws `invalid_amount` if it leaves the safe-integer range. */
export function addMoney(a: Money, b: Money): Money {
  assertSameCurrency(a, b);
  const minor = a.minor + b.minor;
  if (!Number.isSafeInteger(minor)) throw new AarError('invalid_amount', 'sum of amounts is too large');
  return { minor, currency: a.currency };
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareMoney(a: Money, b: Money): -1 | 0 | 1 {
  assertSameCurrency(a, b);
  return a.minor < b.minor ? -1 : a.minor > b.minor ? 1 : 0;
}
