// aar-decide/1.4.0 (issue 29): budgets, allowed merchants and mandate-made grants in decide. Each new reason on its
// pass and fail path, fail closed on missing or malformed facts, and older snapshots deciding exactly as before.
import { describe, expect, it } from 'vitest';
import {
  computeEffectiveScope,
  decide,
  type DecisionResult,
  type GrantMandate,
  type GrantScope,
  type GrantSnapshot,
} from '../../src/decide/index.ts';
import { eurRootCase, grantAt, NOW, type DecisionInput } from './fixtures.ts';
import { loadDecisionVectors } from './load-vectors.ts';

const EUR = (minor: number) => ({ minor, currency: 'EUR' });
const LEAF_ID = 'ns:authority:grant:01963a4e-bf33-7e6d-8c43-5d7e9f1a3b04';

function run(input: DecisionInput): DecisionResult {
  return decide(input.request, input.snapshot, input.now);
}

/** The EUR root case (42.50 EUR at grocer-berlin, root: 150.00 per purchase, 500.00 per day) with extra scope. */
function direct(scope: GrantScope, extra: Partial<GrantSnapshot> = {}): DecisionInput {
  const input = eurRootCase();
  const root = grantAt(input, 0);
  Object.assign(root.scope, scope);
  Object.assign(root, extra);
  return input;
}

function ap2(over: Partial<GrantMandate> = {}): GrantMandate {
  return {
    mandate_id: 'ns:mandate:01963a4f-0a00-7c00-8a00-000000000001',
    format: 'ap2',
    digest: 'q2Vg0S0Zc9y8m6oBqv2x3N1f0dSxq6m6b9m6b0Zq6m4',
    single_use: false,
    used: false,
    ...over,
  };
}

/** The root grant delegated to a leaf made from a mandate (50.00 per purchase, 200.00 in total, grocer-berlin). */
function mandateChain(leaf: Partial<GrantSnapshot> = {}, leafScope: GrantScope = {}): DecisionInput {
  const input = eurRootCase();
  const root = grantAt(input, 0);
  root.actor_entity_id = 'ns:entity:agent:concierge';
  root.actor_state = 'active';
  root.scope.may_delegate = true;
  input.snapshot.grants.push({
    grant_id: LEAF_ID,
    parent_grant_id: root.grant_id,
    principal_entity_id: root.principal_entity_id,
    actor_entity_id: 'ns:entity:agent:shopper-1',
    capability_id: root.capability_id,
    resource_id: root.resource_id,
    state: 'active',
    scope: {
      max_amount_per_purchase: EUR(5000),
      budget: { minor: 20000, currency: 'EUR', period: 'total' },
      allowed_merchants: ['grocer-berlin'],
      valid_until: '2026-05-01T00:00:00Z',
      ...leafScope,
    },
    spent_today: EUR(0),
    budget_spent: EUR(15000),
    depth: 1,
    signature_valid: true,
    mandate: ap2(),
    ...leaf,
  });
  return input;
}

function failed(result: DecisionResult) {
  return result.diagnostics.checks.find((c) => c.outcome === 'fail');
}

describe('budget (budget_exceeded)', () => {
  const monthly = { budget: { minor: 100000, currency: 'EUR', period: 'month' as const } };

  it('allows up to the budget exactly and reserves the amount; one minor unit more is denied', () => {
    const at = run(direct(monthly, { budget_spent: EUR(95750) }));
    expect(at.decision).toBe('allow_with_constraints');
    expect(at.reservation?.amount).toEqual(EUR(4250));
    expect(at.diagnostics.checks.find((c) => c.check === 'amount')).toEqual({
      check: 'amount',
      outcome: 'pass',
      detail: 'within max_amount_per_purchase, max_daily_amount and budget',
    });
    const over = run(direct(monthly, { budget_spent: EUR(95751) }));
    expect({ decision: over.decision, reason: over.reason }).toEqual({ decision: 'deny', reason: 'budget_exceeded' });
    expect(failed(over)?.detail).toBe(
      'over grant `ns:authority:grant:01963a4e-8c00-7b3a-9f10-2a4b6c8d0e01` budget (month)',
    );
    expect(over).not.toHaveProperty('reservation');
  });

  it('is checked after the daily limit: over both reads daily_limit_exceeded', () => {
    // spent_today 120.00 of 500.00: 400.00 more is over the day; the budget is over too
    const input = direct(monthly, { budget_spent: EUR(99000), spent_today: EUR(46000) });
    expect(run(input).reason).toBe('daily_limit_exceeded');
  });

  it('fails closed when budget_spent is missing, malformed or in another currency', () => {
    for (const spent of [
      undefined,
      null,
      'lots',
      { minor: -1, currency: 'EUR' },
      { minor: 1.5, currency: 'EUR' },
      { minor: 10, currency: 'USD' },
    ]) {
      const input = direct(monthly);
      if (spent !== undefined) (grantAt(input, 0) as unknown as Record<string, unknown>).budget_spent = spent;
      const result = run(input);
      expect(result.reason, JSON.stringify(spent)).toBe('budget_exceeded');
      expect(failed(result)?.detail).toContain('budget_spent is missing or malformed');
    }
    // zero in another currency is nothing spent (like spent_today)
    expect(run(direct(monthly, { budget_spent: { minor: 0, currency: 'USD' } })).decision).toBe(
      'allow_with_constraints',
    );
  });

  it('refuses a sum past 2^53 instead of rounding it', () => {
    const huge = { budget: { minor: Number.MAX_SAFE_INTEGER, currency: 'EUR', period: 'total' as const } };
    const input = direct(huge, { budget_spent: EUR(Number.MAX_SAFE_INTEGER - 100) });
    expect(run(input).reason).toBe('budget_exceeded');
  });

  it('counts only executed spend: prepare with the budget used up is allowed, without a reservation', () => {
    const input = direct(monthly, { budget_spent: EUR(100000) });
    input.request.action = 'prepare';
    input.request.subject = 'ns:capability:purchase:prepare';
    const result = run(input);
    expect(result.decision).toBe('allow_with_constraints');
    expect(result).not.toHaveProperty('reservation');
  });

  it('is a money limit: a budget in another currency is currency_mismatch, for every action', () => {
    const input = direct({ budget: { minor: 100000, currency: 'USD', period: 'day' } }, { budget_spent: EUR(0) });
    const result = run(input);
    expect(result.reason).toBe('currency_mismatch');
    expect(failed(result)?.detail).toBe(
      'request in `EUR`, grant `ns:authority:grant:01963a4e-8c00-7b3a-9f10-2a4b6c8d0e01` budget in `USD`',
    );
    input.request.action = 'prepare';
    input.request.subject = 'ns:capability:purchase:prepare';
    expect(run(input).reason).toBe('currency_mismatch');
  });

  it("enforces each link's own budget against that link's spend: the leaf's and the root's", () => {
    expect(run(mandateChain()).decision).toBe('allow_with_constraints');
    expect(run(mandateChain({ budget_spent: EUR(15751) })).reason).toBe('budget_exceeded');
    const rootOver = mandateChain();
    grantAt(rootOver, 0).scope.budget = { minor: 30000, currency: 'EUR', period: 'year' };
    grantAt(rootOver, 0).budget_spent = EUR(26000);
    const result = run(rootOver);
    expect(result.reason).toBe('budget_exceeded');
    expect(failed(result)?.detail).toContain('01963a4e-8c00-7b3a-9f10-2a4b6c8d0e01');
  });

  it('a malformed budget in a scope is delegation_invalid naming the field', () => {
    for (const budget of [
      { minor: 100, currency: 'EUR' },
      { minor: 100, currency: 'EUR', period: 'fortnight' },
      { amount: 1, currency: 'EUR', period: 'day' },
      'EUR 100',
    ]) {
      const input = direct({ budget } as unknown as GrantScope, { budget_spent: EUR(0) });
      const result = run(input);
      expect(result.reason, JSON.stringify(budget)).toBe('delegation_invalid');
      expect(failed(result)?.detail).toContain('malformed budget');
    }
  });

  it('a child budget larger than its parent budget, or in another currency, is delegation_invalid; any period', () => {
    const larger = mandateChain({}, { budget: { minor: 20000, currency: 'EUR', period: 'day' } });
    grantAt(larger, 0).scope.budget = { minor: 19999, currency: 'EUR', period: 'year' };
    grantAt(larger, 0).budget_spent = EUR(0);
    expect(failed(run(larger))?.detail).toMatch(/is wider than its parent: budget$/);
    const smaller = mandateChain({}, { budget: { minor: 19999, currency: 'EUR', period: 'day' } });
    grantAt(smaller, 0).scope.budget = { minor: 20000, currency: 'EUR', period: 'year' };
    grantAt(smaller, 0).budget_spent = EUR(0);
    expect(run(smaller).decision).toBe('allow_with_constraints');
  });

  it('the effective scope carries the lowest budget with its period, and the intersected merchants', () => {
    const result = run(mandateChain());
    expect(result.effective_scope?.budget).toEqual({ minor: 20000, currency: 'EUR', period: 'total' });
    expect(result.effective_scope?.allowed_merchants).toEqual(['grocer-berlin']);
    expect(
      computeEffectiveScope([
        { allowed_merchants: ['a', 'b', 'c'], budget: { minor: 500, currency: 'EUR', period: 'week' } },
        { allowed_merchants: ['c', 'a', 'z'], budget: { minor: 500, currency: 'EUR', period: 'day' } },
      ]),
    ).toEqual({ allowed_merchants: ['a', 'c'], budget: { minor: 500, currency: 'EUR', period: 'week' } });
  });
});

describe('allowed_merchants (merchant_not_allowed)', () => {
  it('allows a listed merchant and denies any other, by exact id', () => {
    expect(run(direct({ allowed_merchants: ['bakery-paris', 'grocer-berlin'] })).decision).toBe(
      'allow_with_constraints',
    );
    for (const list of [['bakery-paris'], [], ['Grocer-Berlin'], ['ns:merchant:grocer-berlin x']]) {
      const result = run(direct({ allowed_merchants: list }));
      expect(result.reason, JSON.stringify(list)).toBe('merchant_not_allowed');
      expect(failed(result)).toMatchObject({ check: 'merchant', reason: 'merchant_not_allowed' });
    }
  });

  it('is checked right after merchant_unknown: before a blocked category, after an unregistered merchant', () => {
    const blocked = direct({ allowed_merchants: ['bakery-paris'], blocked_merchant_categories: ['5411'] });
    expect(run(blocked).reason).toBe('merchant_not_allowed');
    const unknown = direct({ allowed_merchants: ['bakery-paris'] });
    unknown.snapshot.merchant = null;
    expect(run(unknown).reason).toBe('merchant_unknown');
  });

  it("any link's list applies (intersection along the chain); a child may not list a merchant its parent does not", () => {
    const rootOnly = mandateChain({}, { allowed_merchants: undefined });
    grantAt(rootOnly, 0).scope.allowed_merchants = ['bakery-paris'];
    // the leaf names none of its own: it inherits the root's list, which excludes grocer-berlin
    delete grantAt(rootOnly, 1).scope.allowed_merchants;
    expect(run(rootOnly).reason).toBe('merchant_not_allowed');
    const wider = mandateChain();
    grantAt(wider, 0).scope.allowed_merchants = ['bakery-paris'];
    const result = run(wider);
    expect(result.reason).toBe('delegation_invalid');
    expect(failed(result)?.detail).toMatch(/wider than its parent: allowed_merchants$/);
  });

  it('a list that is not an array of strings is delegation_invalid', () => {
    const result = run(direct({ allowed_merchants: 'grocer-berlin' } as unknown as GrantScope));
    expect(failed(result)?.detail).toContain('malformed allowed_merchants');
  });
});

describe('mandate-made grants (mandate_revoked, mandate_expired, allowance_used)', () => {
  it('a revoked link made from a mandate is mandate_revoked', () => {
    const result = run(mandateChain({ state: 'revoked' }));
    expect({ decision: result.decision, reason: result.reason }).toEqual({
      decision: 'deny',
      reason: 'mandate_revoked',
    });
    expect(failed(result)?.detail).toBe(
      `mandate \`ns:mandate:01963a4f-0a00-7c00-8a00-000000000001\` of grant \`${LEAF_ID}\` is \`revoked\``,
    );
  });

  it('a revoked principal grant above the mandate still reads authority_revoked (root first)', () => {
    const input = mandateChain({ state: 'revoked' });
    grantAt(input, 0).state = 'revoked';
    expect(run(input).reason).toBe('authority_revoked');
  });

  it('a revocation reads as a revocation even when the mandate is also expired', () => {
    const input = mandateChain({ state: 'revoked' }, { valid_until: '2026-04-15T09:00:00Z' });
    expect(run(input).reason).toBe('mandate_revoked');
  });

  it('an expired link made from a mandate is mandate_expired; the instant itself counts as expired', () => {
    expect(run(mandateChain({}, { valid_until: NOW })).reason).toBe('mandate_expired');
    expect(run(mandateChain({}, { valid_until: '2026-04-15T10:00:00.000000001Z' })).decision).toBe(
      'allow_with_constraints',
    );
    // the root expired first: the first expired link, root first, names the reason
    const rootExpired = mandateChain({}, { valid_until: '2026-04-15T09:00:00Z' });
    grantAt(rootExpired, 0).scope.valid_until = '2026-04-15T08:00:00Z';
    expect(run(rootExpired).reason).toBe('authority_expired');
  });

  it('a single-use allowance is allowed once, then allowance_used; a used multi-use mandate is not', () => {
    const acp = (used: boolean) =>
      ap2({ mandate_id: 'ns:allowance:01963a4f-0b00-7c00-8a00-000000000002', format: 'acp', single_use: true, used });
    expect(run(mandateChain({ mandate: acp(false) })).decision).toBe('allow_with_constraints');
    const used = run(mandateChain({ mandate: acp(true) }));
    expect(used.reason).toBe('allowance_used');
    expect(failed(used)?.check).toBe('chain');
    expect(run(mandateChain({ mandate: ap2({ used: true }) })).decision).toBe('allow_with_constraints');
  });

  it('allowance_used comes after revoked and expired', () => {
    const acpUsed = ap2({ single_use: true, used: true });
    expect(run(mandateChain({ mandate: acpUsed, state: 'revoked' })).reason).toBe('mandate_revoked');
    expect(run(mandateChain({ mandate: acpUsed }, { valid_until: NOW })).reason).toBe('mandate_expired');
  });

  it('a malformed mandate binding is delegation_invalid', () => {
    const bad: unknown[] = [
      'ns:mandate:x',
      null,
      ap2({ format: 'vi' as never }),
      ap2({ mandate_id: '' }),
      ap2({ digest: 5 as never }),
      ap2({ single_use: 'no' as never }),
      { mandate_id: 'ns:mandate:x', format: 'ap2', digest: 'd', single_use: false },
    ];
    for (const mandate of bad) {
      const result = run(mandateChain({ mandate: mandate as GrantMandate }));
      expect(result.reason, JSON.stringify(mandate)).toBe('delegation_invalid');
      expect(failed(result)?.detail).toContain('has malformed mandate');
    }
  });

  it('a mandate on the root (a direct grant) is judged the same way', () => {
    expect(run(direct({}, { mandate: ap2(), state: 'revoked' })).reason).toBe('mandate_revoked');
    expect(run(direct({}, { mandate: ap2({ single_use: true, used: true }) })).reason).toBe('allowance_used');
  });
});

describe('older snapshots (before aar-decide/1.4.0)', () => {
  it('every decision vector without the new members decides as it always did', () => {
    const isNew = (v: { input: { snapshot: unknown } }) =>
      /budget|allowed_merchants|"mandate"/.test(JSON.stringify(v.input.snapshot));
    const old = loadDecisionVectors().filter((v) => !isNew(v));
    expect(old.length).toBeGreaterThanOrEqual(80);
    for (const v of old) {
      const result = decide(v.input.request, v.input.snapshot, v.input.now);
      expect(result.effective_scope ?? {}, v.file).not.toHaveProperty('budget');
      expect(result.effective_scope ?? {}, v.file).not.toHaveProperty('allowed_merchants');
      expect({ decision: result.decision, reason: result.reason }, v.file).toEqual({
        decision: v.want.decision,
        reason: v.want.reason,
      });
    }
  });

  it('an old snapshot with budget_spent on a grant that has no budget ignores it', () => {
    const input = eurRootCase();
    grantAt(input, 0).budget_spent = { minor: 99_999_999, currency: 'EUR' };
    expect(run(input)).toEqual(run(eurRootCase()));
  });
});
