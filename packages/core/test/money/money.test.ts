import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AarError } from '../../src/errors/aar-error.ts';
import { parseAmount, parseMoney } from '../../src/money/money.ts';
import { formatMoney, moneyToJson, toMajorUnits } from '../../src/money/money-format.ts';
import { addMoney, compareMoney } from '../../src/money/money-arithmetic.ts';

function refusal(run: () => unknown): { code: string; path: string | undefined } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AarError);
    return { code: (error as AarError).code, path: (error as AarError).errors?.[0]?.path };
  }
  throw new Error('accepted');
}

const amount = (value: unknown, currency: unknown = 'EUR') =>
  parseAmount(value, currency, '/resource/amount', '/resource/currency');

describe('parseAmount', () => {
  it.each([
    [30, 'EUR', 3000],
    [30.5, 'EUR', 3050],
    [30.05, 'EUR', 3005],
    [0.01, 'EUR', 1],
    [1500, 'JPY', 1500],
    [1.234, 'BHD', 1234],
    [0.001, 'KWD', 1],
    [1.2345, 'CLF', 12345],
    [9007199254740991, 'JPY', 9007199254740991],
    [90071992547409.9, 'EUR', 9007199254740990],
    [1e13, 'EUR', 1e15],
  ])('%d %s is %d minor units', (value, currency, minor) => {
    expect(amount(value, currency)).toEqual({ minor, currency });
  });

  it.each([
    ['a string', '30.00'],
    ['null', null],
    ['missing', undefined],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['zero', 0],
    ['negative zero', -0],
    ['negative', -5],
    ['3 decimals in EUR', 30.055],
    ['0.1 + 0.2', 0.1 + 0.2],
    ['1e-7 (exponent form)', 1e-7],
    ['1e21 (exponent form)', 1e21],
    ['more minor units than MAX_SAFE_INTEGER', 90071992547409.92 * 10],
    ['16 significant digits with a fraction', 12345678901234.56],
  ])('refuses %s with invalid_amount at the amount', (_name, value) => {
    expect(refusal(() => amount(value))).toEqual({ code: 'invalid_amount', path: '/resource/amount' });
  });

  it.each([
    [1500.5, 'JPY'],
    [1.2345, 'BHD'],
    [1.23456, 'CLF'],
    [2 ** 53, 'JPY'],
  ])('refuses %d %s', (value, currency) => {
    expect(refusal(() => amount(value, currency)).code).toBe('invalid_amount');
  });

  it.each(['XAU', 'XDR', 'XXX', 'eur', 'EURO', '', 'constructor', 978, null])(
    'refuses currency %j with unknown_currency at the currency',
    (currency) => {
      expect(refusal(() => amount(10, currency))).toEqual({ code: 'unknown_currency', path: '/resource/currency' });
    },
  );
});

describe('parseMoney', () => {
  it('parses a money object', () => {
    expect(parseMoney({ amount: 250, currency: 'EUR' }, '/scope/max_daily_amount')).toEqual({
      minor: 25000,
      currency: 'EUR',
    });
  });

  it.each([
    ['an extra member', { amount: 1, currency: 'EUR', minor: 100 }, 'invalid_request', '/limit/minor'],
    ['an array', [1, 'EUR'], 'invalid_request', '/limit'],
    ['null', null, 'invalid_request', '/limit'],
    ['a number', 5, 'invalid_request', '/limit'],
    ['a missing amount', { currency: 'EUR' }, 'invalid_amount', '/limit/amount'],
    ['a missing currency', { amount: 5 }, 'unknown_currency', '/limit/currency'],
    ['too many decimals', { amount: 5.001, currency: 'EUR' }, 'invalid_amount', '/limit/amount'],
  ])('refuses %s', (_name, value, code, path) => {
    expect(refusal(() => parseMoney(value, '/limit'))).toEqual({ code, path });
  });
});

describe('money formatting', () => {
  it.each([
    [3000, 'EUR', 30, '30.00 EUR'],
    [5, 'EUR', 0.05, '0.05 EUR'],
    [0, 'EUR', 0, '0.00 EUR'],
    [-5, 'EUR', -0.05, '-0.05 EUR'],
    [1500, 'JPY', 1500, '1500 JPY'],
    [1, 'BHD', 0.001, '0.001 BHD'],
    [12345, 'CLF', 1.2345, '1.2345 CLF'],
  ])('%d minor %s', (minor, currency, major, text) => {
    expect(toMajorUnits({ minor, currency })).toBe(major);
    expect(formatMoney({ minor, currency })).toBe(text);
    expect(moneyToJson({ minor, currency })).toEqual({ amount: major, currency });
  });

  it('refuses values that are not money', () => {
    expect(() => toMajorUnits({ minor: 1.5, currency: 'EUR' })).toThrow(AarError);
    expect(() => formatMoney({ minor: 1, currency: 'XAU' })).toThrow(AarError);
  });

  it('refuses a major-unit number no double holds exactly', () => {
    expect(refusal(() => toMajorUnits({ minor: Number.MAX_SAFE_INTEGER, currency: 'EUR' })).code).toBe(
      'invalid_amount',
    );
  });
});

describe('money arithmetic', () => {
  const eur = (minor: number) => ({ minor, currency: 'EUR' });
  it('adds and compares exactly', () => {
    expect(addMoney(eur(10), eur(20))).toEqual(eur(30));
    expect(compareMoney(eur(10), eur(20))).toBe(-1);
    expect(compareMoney(eur(20), eur(20))).toBe(0);
    expect(compareMoney(eur(21), eur(20))).toBe(1);
  });

  it('throws on currency mismatch, never converts', () => {
    expect(() => addMoney(eur(1), { minor: 1, currency: 'USD' })).toThrow(AarError);
    expect(() => compareMoney(eur(1), { minor: 1, currency: 'USD' })).toThrow(AarError);
  });

  it('refuses a sum beyond the safe-integer range', () => {
    expect(refusal(() => addMoney(eur(Number.MAX_SAFE_INTEGER), eur(1))).code).toBe('invalid_amount');
  });
});

describe('money properties', () => {
  const currencies = ['JPY', 'EUR', 'BHD', 'CLF'] as const;
  const exact = fc.integer({ min: 1, max: 10 ** 15 - 1 });

  it.each(currencies)('%s: every minor value survives toMajorUnits then parseAmount', (currency) => {
    fc.assert(
      fc.property(exact, (minor) => {
        expect(amount(toMajorUnits({ minor, currency }), currency)).toEqual({ minor, currency });
      }),
    );
  });

  it.each(currencies)('%s: across the whole safe range, exact or refused, never altered', (currency) => {
    fc.assert(
      fc.property(
        fc.maxSafeNat().filter((n) => n > 0),
        (minor) => {
          let major: number;
          try {
            major = toMajorUnits({ minor, currency });
          } catch (error) {
            expect((error as AarError).code).toBe('invalid_amount');
            expect(currency).not.toBe('JPY');
            return;
          }
          expect(amount(major, currency)).toEqual({ minor, currency });
        },
      ),
    );
  });

  it('JPY: every safe minor value survives', () => {
    fc.assert(
      fc.property(
        fc.maxSafeNat().filter((n) => n > 0),
        (minor) => {
          expect(amount(toMajorUnits({ minor, currency: 'JPY' }), 'JPY').minor).toBe(minor);
        },
      ),
    );
  });

  it.each([
    ['JPY', 0],
    ['EUR', 2],
    ['BHD', 3],
  ] as const)('%s: an amount with one decimal too many is always refused', (currency, digits) => {
    const oneTooMany = fc.integer({ min: 1, max: 10 ** 14 }).filter((n) => n % 10 !== 0);
    fc.assert(
      fc.property(oneTooMany, (n) => {
        const text = String(n).padStart(digits + 2, '0');
        const value = Number(`${text.slice(0, -(digits + 1))}.${text.slice(-(digits + 1))}`);
        expect(refusal(() => amount(value, currency)).code).toBe('invalid_amount');
      }),
    );
  });
});
