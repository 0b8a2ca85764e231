/**
 * aar-decide/1.4.0 scope fields in delegation (issue 29): a signed link's wire `budget` ({ amount, currency, period })
 * and `allowed_merchants` read into decide's form, and the subset rule POST /v1/grants (422 `scope_not_subset`) and
 * the offline chain verifier apply to them, naming each field.
 */
import { describe, expect, it } from 'vitest';
import { findAttenuationViolations, readWireScope, type LinkTerms } from '../../src/index.ts';
import { CARD, PRINCIPAL, PURCHASE, ROOT_SCOPE } from './chain-builder.ts';

const terms = (wire: Record<string, unknown>): LinkTerms => {
  const read = readWireScope(wire);
  expect(read.malformed).toEqual([]);
  return { principal_entity_id: PRINCIPAL, capability_id: PURCHASE, resource_id: CARD, scope: read.scope };
};
const parent = terms({
  ...ROOT_SCOPE,
  budget: { amount: 1000, currency: 'EUR', period: 'month' },
  allowed_merchants: ['grocer-berlin', 'bakery-paris'],
});
const violations = (child: Record<string, unknown>) => findAttenuationViolations(terms(child), [parent]);

describe('readWireScope: budget and allowed_merchants', () => {
  it('reads a budget into minor units with its period, and a merchant list as is', () => {
    expect(
      readWireScope({ budget: { amount: 12.345, currency: 'BHD', period: 'week' }, allowed_merchants: ['a', 'b'] }),
    ).toEqual({
      scope: { budget: { minor: 12345, currency: 'BHD', period: 'week' }, allowed_merchants: ['a', 'b'] },
      malformed: [],
    });
  });

  it('names a malformed budget or merchant list instead of reading it as absent', () => {
    for (const budget of [
      { amount: 10, currency: 'EUR' },
      { amount: 10, currency: 'EUR', period: 'fortnight' },
      { amount: 10.001, currency: 'EUR', period: 'day' },
      { amount: -1, currency: 'EUR', period: 'day' },
      { amount: 10, currency: 'EUR', period: 'day', rollover: true },
      { minor: 1000, currency: 'EUR', period: 'day' },
      '10 EUR',
    ]) {
      expect(readWireScope({ budget }).malformed, JSON.stringify(budget)).toEqual(['budget']);
    }
    expect(readWireScope({ allowed_merchants: 'grocer-berlin' }).malformed).toEqual(['allowed_merchants']);
    expect(readWireScope({ allowed_merchants: [1] }).malformed).toEqual(['allowed_merchants']);
  });
});

describe('findAttenuationViolations: budget and allowed_merchants', () => {
  it('accepts a smaller or equal budget in any period, a merchant subset, and omitted fields (they inherit)', () => {
    expect(violations({ budget: { amount: 1000, currency: 'EUR', period: 'total' } })).toEqual([]);
    expect(violations({ budget: { amount: 5, currency: 'EUR', period: 'day' } })).toEqual([]);
    expect(violations({ allowed_merchants: ['bakery-paris'] })).toEqual([]);
    expect(violations({ allowed_merchants: [] })).toEqual([]);
    expect(violations({})).toEqual([]);
  });

  it('refuses a larger budget, a budget in another currency, and an added merchant, naming each field', () => {
    expect(violations({ budget: { amount: 1000.01, currency: 'EUR', period: 'day' } })).toEqual([
      { path: '/scope/budget', message: "must be at most 1000.00 EUR, the parent's budget (per month)" },
    ]);
    expect(violations({ budget: { amount: 10, currency: 'USD', period: 'day' } })).toEqual([
      { path: '/scope/budget/currency', message: "must be `EUR`, the currency of the parent's limits" },
    ]);
    expect(
      violations({
        budget: { amount: 2000, currency: 'EUR', period: 'year' },
        allowed_merchants: ['grocer-berlin', 'casino-online', 'bar-x'],
        max_daily_amount: { amount: 301, currency: 'EUR' },
      }).map((v) => [v.path, v.message]),
    ).toEqual([
      ['/scope/max_daily_amount', "must be at most 300.00 EUR, the parent's"],
      ['/scope/budget', "must be at most 1000.00 EUR, the parent's budget (per month)"],
      ['/scope/allowed_merchants', 'may not add `casino-online`, `bar-x`'],
    ]);
  });

  it("a child's budget must be in the currency of the parent's limits even when the parent has no budget", () => {
    const plain = terms({ ...ROOT_SCOPE });
    const child = terms({ budget: { amount: 10, currency: 'JPY', period: 'day' } });
    expect(findAttenuationViolations(child, [plain]).map((v) => v.path)).toEqual(['/scope/budget/currency']);
    const same = terms({ budget: { amount: 5000, currency: 'EUR', period: 'day' } });
    // no parent budget: any amount (the parent's other limits still bind every purchase)
    expect(findAttenuationViolations(same, [plain])).toEqual([]);
  });

  it('a merchant list under a parent without one narrows, never widens', () => {
    const plain = terms({ ...ROOT_SCOPE });
    expect(findAttenuationViolations(terms({ allowed_merchants: ['anything'] }), [plain])).toEqual([]);
  });
});
