// A grant's `budget` and `allowed_merchants` (issue 29): parsed from the wire like the other limits, stored in minor
// units, written back to the wire unchanged; bad input is refused naming the member (JSON pointer).
import { AarError } from '@aar/core';
import { describe, expect, it } from 'vitest';
import { parseGrantScope, scopeToWire } from '../../src/services/grants/grant-scope.ts';
import { toDecideScope } from '../../src/services/authorize/to-decide-scope.ts';

const NOW = new Date('2026-04-15T10:00:00Z');

function refusal(raw: Record<string, unknown>): { code: string; pointer: string | undefined } {
  try {
    parseGrantScope(raw, NOW);
  } catch (error) {
    expect(error).toBeInstanceOf(AarError);
    const e = error as AarError & { extras?: { errors?: { path?: string; pointer?: string }[] } };
    const json = JSON.stringify(e);
    const pointer = /"(?:pointer|path)":"([^"]+)"/.exec(json)?.[1];
    return { code: e.code, pointer };
  }
  throw new Error('accepted');
}

describe('parseGrantScope: budget', () => {
  it('stores minor units with the period, and writes the same wire form back', () => {
    const raw = {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
      budget: { amount: 200.5, currency: 'EUR', period: 'month' },
    };
    const stored = parseGrantScope(raw, NOW);
    expect(stored.budget).toEqual({ minor: 20050, currency: 'EUR', period: 'month' });
    expect(scopeToWire(stored)).toEqual(raw);
    expect(toDecideScope(stored).budget).toEqual({ minor: 20050, currency: 'EUR', period: 'month' });
    for (const period of ['day', 'week', 'month', 'year', 'total']) {
      expect(parseGrantScope({ budget: { amount: 1, currency: 'JPY', period } }, NOW).budget?.period).toBe(period);
    }
    expect(parseGrantScope({ budget: { amount: 12.345, currency: 'BHD', period: 'week' } }, NOW).budget?.minor).toBe(
      12345,
    );
  });

  it('refuses a budget in another currency than the grant limits, at /scope/budget/currency', () => {
    expect(
      refusal({
        max_daily_amount: { amount: 50, currency: 'EUR' },
        budget: { amount: 1, currency: 'USD', period: 'day' },
      }),
    ).toEqual({ code: 'invalid_request', pointer: '/scope/budget/currency' });
  });

  it('refuses a bad period, amount, currency or member, naming it', () => {
    expect(refusal({ budget: { amount: 1, currency: 'EUR' } }).pointer).toBe('/scope/budget/period');
    expect(refusal({ budget: { amount: 1, currency: 'EUR', period: 'fortnight' } }).pointer).toBe(
      '/scope/budget/period',
    );
    expect(refusal({ budget: { amount: 1.001, currency: 'EUR', period: 'day' } })).toEqual({
      code: 'invalid_amount',
      pointer: '/scope/budget/amount',
    });
    expect(refusal({ budget: { amount: 0, currency: 'EUR', period: 'day' } }).code).toBe('invalid_amount');
    expect(refusal({ budget: { amount: 1, currency: 'XXZ', period: 'day' } })).toEqual({
      code: 'unknown_currency',
      pointer: '/scope/budget/currency',
    });
    expect(refusal({ budget: { amount: 1, currency: 'EUR', period: 'day', rollover: true } }).pointer).toBe(
      '/scope/budget/rollover',
    );
    expect(refusal({ budget: 100 }).pointer).toBe('/scope/budget');
  });
});

describe('parseGrantScope: allowed_merchants', () => {
  it('stores plain merchant ids; `ns:merchant:<id>` is accepted and stored plain', () => {
    const stored = parseGrantScope({ allowed_merchants: ['grocer-berlin', 'ns:merchant:bakery.paris_2'] }, NOW);
    expect(stored.allowed_merchants).toEqual(['grocer-berlin', 'bakery.paris_2']);
    expect(scopeToWire(stored)).toEqual({ allowed_merchants: ['grocer-berlin', 'bakery.paris_2'] });
    expect(parseGrantScope({ allowed_merchants: [] }, NOW).allowed_merchants).toEqual([]);
  });

  it('refuses an id the merchants table cannot hold, a repeat (in either spelling) and a non-list', () => {
    expect(refusal({ allowed_merchants: ['ok', 'not ok'] }).pointer).toBe('/scope/allowed_merchants/1');
    expect(refusal({ allowed_merchants: ['x'.repeat(129)] }).pointer).toBe('/scope/allowed_merchants/0');
    expect(refusal({ allowed_merchants: ['ns:merchant:'] }).pointer).toBe('/scope/allowed_merchants/0');
    expect(refusal({ allowed_merchants: ['a', 'ns:merchant:a'] }).pointer).toBe('/scope/allowed_merchants/1');
    expect(refusal({ allowed_merchants: 'a' }).pointer).toBe('/scope/allowed_merchants');
    expect(refusal({ allowed_merchants: [7] }).pointer).toBe('/scope/allowed_merchants/0');
  });
});
