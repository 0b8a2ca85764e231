import { describe, expect, it } from 'vitest';
import { CURRENCY_DIGITS, currencyDigits, isCurrency } from '../../src/money/currencies.ts';

describe('CURRENCY_DIGITS', () => {
  it('holds the ISO 4217 minor units', () => {
    expect(CURRENCY_DIGITS.EUR).toBe(2);
    expect(CURRENCY_DIGITS.USD).toBe(2);
    expect(CURRENCY_DIGITS.JPY).toBe(0);
    expect(CURRENCY_DIGITS.KRW).toBe(0);
    expect(CURRENCY_DIGITS.BHD).toBe(3);
    expect(CURRENCY_DIGITS.KWD).toBe(3);
    expect(CURRENCY_DIGITS.TND).toBe(3);
    expect(CURRENCY_DIGITS.CLF).toBe(4);
    expect(CURRENCY_DIGITS.UYW).toBe(4);
  });

  it('is complete: every active code, each well formed', () => {
    const codes = Object.keys(CURRENCY_DIGITS);
    expect(codes.length).toBeGreaterThanOrEqual(165);
    for (const code of codes) {
      expect(code).toMatch(/^[A-Z]{3}$/);
      expect([0, 2, 3, 4]).toContain(CURRENCY_DIGITS[code]);
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(CURRENCY_DIGITS)).toBe(true);
    expect(() => {
      (CURRENCY_DIGITS as Record<string, number>).ABC = 2;
    }).toThrow(TypeError);
  });

  it.each(['XAU', 'XAG', 'XPT', 'XPD', 'XDR', 'XSU', 'XUA', 'XBA', 'XTS', 'XXX'])(
    'leaves out %s, which has no minor unit',
    (code) => {
      expect(isCurrency(code)).toBe(false);
      expect(currencyDigits(code)).toBeUndefined();
    },
  );

  it.each(['eur', 'EURO', 'EU', '', 'constructor', 'toString', '__proto__', 'HRK'])('refuses %j', (code) => {
    expect(isCurrency(code)).toBe(false);
    expect(currencyDigits(code)).toBeUndefined();
  });

  it('refuses non-strings', () => {
    expect(isCurrency(978)).toBe(false);
    expect(isCurrency(null)).toBe(false);
  });
});
