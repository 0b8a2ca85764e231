/**
 * Attenuation, field by field: any narrowing of a parent is accepted, any single widening is refused at exactly the
 * field widened, and several widenings are all named (the server's 422 lists every one).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findAttenuationViolations,
  findDelegationLimit,
  readWireScope,
  type GrantScope,
  type LinkTerms,
  type WireGrantScope,
} from '../../src/index.ts';
import { CARD, PRINCIPAL, PURCHASE, ROOT_SCOPE } from './chain-builder.ts';

const scopeOf = (wire: WireGrantScope): GrantScope => {
  const read = readWireScope(wire);
  expect(read.malformed).toEqual([]);
  return read.scope;
};
const terms = (scope: WireGrantScope, extra: Partial<LinkTerms> = {}): LinkTerms => ({
  principal_entity_id: PRINCIPAL,
  capability_id: PURCHASE,
  resource_id: CARD,
  scope: scopeOf(scope),
  ...extra,
});
const parent = terms(ROOT_SCOPE);
const paths = (child: LinkTerms) => findAttenuationViolations(child, [parent]).map((v) => v.path);

/** A narrowing of ROOT_SCOPE built from fast-check choices. */
const narrowing = fc.record({
  perPurchase: fc.integer({ min: 1, max: 10000 }),
  daily: fc.integer({ min: 1, max: 30000 }),
  approval: fc.integer({ min: 1, max: 8000 }),
  categories: fc.subarray(['5411', '5812', 'groceries']),
  blocked: fc.subarray(['5993', '4829', 'gambling']),
  jurisdictions: fc.subarray(['DE', 'FR']),
  actions: fc.subarray(['purchase.search', 'purchase.compare', 'purchase.execute']),
  until: fc.date({ min: new Date('2026-05-01T00:00:00Z'), max: new Date('2026-12-31T23:59:59Z'), noInvalidDate: true }),
  depth: fc.integer({ min: 0, max: 1 }),
  omit: fc.subarray([
    'max_amount_per_purchase',
    'max_daily_amount',
    'requires_approval_above',
    'allowed_merchant_categories',
    'blocked_merchant_categories',
    'allowed_jurisdictions',
    'valid_until',
    'allowed_actions',
    'max_delegation_depth',
  ]),
});

describe('findAttenuationViolations', () => {
  it('accepts every narrowing, and every omitted field (it inherits)', () => {
    fc.assert(
      fc.property(narrowing, (n) => {
        const scope: Record<string, unknown> = {
          max_amount_per_purchase: { amount: n.perPurchase / 100, currency: 'EUR' },
          max_daily_amount: { amount: n.daily / 100, currency: 'EUR' },
          requires_approval_above: { amount: n.approval / 100, currency: 'EUR' },
          allowed_merchant_categories: n.categories,
          blocked_merchant_categories: ['7995', ...n.blocked],
          allowed_jurisdictions: n.jurisdictions,
          valid_until: n.until.toISOString(),
          allowed_actions: n.actions,
          max_delegation_depth: n.depth,
        };
        for (const key of n.omit) delete scope[key];
        expect(paths(terms(scope as WireGrantScope))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it.each<[string, WireGrantScope, string]>([
    [
      'per-purchase amount',
      { max_amount_per_purchase: { amount: 100.01, currency: 'EUR' } },
      '/scope/max_amount_per_purchase',
    ],
    ['daily amount', { max_daily_amount: { amount: 300.01, currency: 'EUR' } }, '/scope/max_daily_amount'],
    [
      'approval threshold',
      { requires_approval_above: { amount: 81, currency: 'EUR' } },
      '/scope/requires_approval_above',
    ],
    ['currency', { max_daily_amount: { amount: 1, currency: 'USD' } }, '/scope/max_daily_amount/currency'],
    ['valid_until', { valid_until: '2027-01-01T00:00:00Z' }, '/scope/valid_until'],
    ['allowed categories', { allowed_merchant_categories: ['5411', '7995'] }, '/scope/allowed_merchant_categories'],
    ['blocked categories', { blocked_merchant_categories: ['5993'] }, '/scope/blocked_merchant_categories'],
    ['jurisdictions', { allowed_jurisdictions: ['DE', 'US'] }, '/scope/allowed_jurisdictions'],
    ['jurisdiction case variant', { allowed_jurisdictions: ['de'] }, '/scope/allowed_jurisdictions'],
    ['category case variant', { allowed_merchant_categories: ['Groceries'] }, '/scope/allowed_merchant_categories'],
    ['actions', { allowed_actions: ['purchase.refund_request'] }, '/scope/allowed_actions'],
    ['delegation depth', { max_delegation_depth: 2 }, '/scope/max_delegation_depth'],
  ])('refuses a wider %s at exactly that field', (_name, scope, path) => {
    expect(paths(terms(scope))).toEqual([path]);
  });

  it('refuses another instrument, principal or a wider capability', () => {
    expect(paths(terms({}, { resource_id: 'ns:credential:card-token:tok-2' }))).toEqual(['/resource_id']);
    expect(paths(terms({}, { principal_entity_id: 'ns:entity:person:bob' }))).toEqual(['/principal_entity_id']);
    const searchOnly = terms(ROOT_SCOPE, { capability_id: 'ns:capability:purchase:search' });
    expect(findAttenuationViolations(terms({}), [searchOnly]).map((v) => v.path)).toEqual(['/capability_id']);
    expect(paths(terms({}, { capability_id: 'ns:capability:purchase:execute' }))).toEqual([]);
    expect(paths(terms({}, { capability_id: 'ns:capability:other:thing' }))).toEqual(['/capability_id']);
  });

  it('names every offending field at once', () => {
    const child = terms(
      {
        max_amount_per_purchase: { amount: 1000, currency: 'EUR' },
        max_daily_amount: { amount: 10, currency: 'USD' },
        valid_until: '2030-01-01T00:00:00Z',
        allowed_jurisdictions: ['US'],
        blocked_merchant_categories: [],
      },
      { resource_id: 'ns:credential:card-token:tok-9' },
    );
    expect(paths(child).sort()).toEqual(
      [
        '/resource_id',
        '/scope/allowed_jurisdictions',
        '/scope/blocked_merchant_categories',
        '/scope/max_amount_per_purchase',
        '/scope/max_daily_amount/currency',
        '/scope/valid_until',
      ].sort(),
    );
  });
});

describe('findDelegationLimit', () => {
  it('needs may_delegate on the parent and respects every ancestor depth limit', () => {
    expect(findDelegationLimit([scopeOf({})])).toEqual({ code: 'not_delegable' });
    expect(findDelegationLimit([scopeOf({ may_delegate: true })])).toBeUndefined();
    expect(findDelegationLimit([scopeOf({ may_delegate: true, max_delegation_depth: 0 })])).toMatchObject({
      code: 'too_deep',
      index: 0,
    });
    const root = scopeOf({ may_delegate: true, max_delegation_depth: 2 });
    expect(findDelegationLimit([root, scopeOf({})])).toBeUndefined();
    expect(findDelegationLimit([root, scopeOf({}), scopeOf({})])).toMatchObject({ code: 'too_deep', index: 0 });
    expect(findDelegationLimit([root, scopeOf({ may_delegate: false })])).toEqual({ code: 'not_delegable' });
  });
});
