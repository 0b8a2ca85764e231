import { describe, expect, it } from 'vitest';
import { readSharedJson } from '../../../../vectors/lib/shared-vectors.ts';
import { acpAllowanceToScope, containsCardNumber, parseAcpAllowance } from '../../src/mandates/index.ts';

// ACP delegate_payment allowances, against the published schema and examples (../shared/vectors/acp, never copied
// into the project).
interface Examples {
  delegate_payment_request: Record<string, unknown> & { allowance: Record<string, unknown> };
}
interface Schema {
  $defs: { Allowance: { required: string[]; properties: Record<string, unknown>; example: Record<string, unknown> } };
}
const examples = readSharedJson<Examples>('acp', 'examples.delegate_payment.json');
const schema = readSharedJson<Schema>('acp', 'schema.delegate_payment.json');

const VALID = {
  reason: 'one_time',
  max_amount: 2000,
  currency: 'usd',
  checkout_session_id: 'csn_01HV3P3XYZ9ABC',
  merchant_id: 'acme_store',
  expires_at: '2026-10-09T07:20:50.52Z',
};
const MERCHANT = 'ns:merchant:11111111-1111-4111-8111-111111111111';

describe.skipIf(!examples || !schema)('the published ACP examples', () => {
  it('the success example allowance and the schema example are accepted, currency upper-cased', () => {
    expect(parseAcpAllowance(examples!.delegate_payment_request.allowance)).toEqual({
      ok: true,
      allowance: {
        reason: 'one_time',
        maxAmount: { minor: 2000, currency: 'USD' },
        currency: 'USD',
        checkoutSessionId: 'csn_01HV3P3XYZ9ABC',
        merchantId: 'acme_store',
        expiresAt: '2025-10-09T07:20:50.520Z',
      },
    });
    expect(parseAcpAllowance(schema!.$defs.Allowance.example)).toMatchObject({ ok: true });
  });

  it('the members checked are exactly the schema members, all required', () => {
    expect(Object.keys(schema!.$defs.Allowance.properties).sort()).toEqual(Object.keys(VALID).sort());
    expect([...schema!.$defs.Allowance.required].sort()).toEqual(Object.keys(VALID).sort());
    const result = parseAcpAllowance({});
    expect(result.ok ? [] : result.errors.map((e) => e.path).sort()).toEqual(
      Object.keys(VALID)
        .map((k) => `/allowance/${k}`)
        .sort(),
    );
  });

  it('the request as published carries a test card number: containsCardNumber sees it, and only there', () => {
    const request = examples!.delegate_payment_request;
    expect(containsCardNumber(request)).toBe(true);
    const { payment_method: _, ...withoutCard } = request;
    expect(containsCardNumber(withoutCard)).toBe(false);
    expect(containsCardNumber({ note: '4111 1111 1111 1111' })).toBe(true);
    expect(containsCardNumber({ id: 'ns:card_token:tok_1', amount: 19900 })).toBe(false);
  });
});

describe('parseAcpAllowance', () => {
  it.each([
    ['reason', 'recurring', 'reason'],
    ['max_amount', 20.5, 'max_amount'],
    ['max_amount', 0, 'max_amount'],
    ['max_amount', '2000', 'max_amount'],
    ['currency', 'USD', 'currency'],
    ['currency', 'xyz', 'currency'],
    ['checkout_session_id', '', 'checkout_session_id'],
    ['merchant_id', 'm'.repeat(257), 'merchant_id'],
    ['expires_at', '2026-10-09', 'expires_at'],
    ['expires_at', '2026-13-09T07:20:50Z', 'expires_at'],
  ])('%s = %j is refused naming it', (member, value, path) => {
    expect(parseAcpAllowance({ ...VALID, [member]: value })).toEqual({
      ok: false,
      errors: [{ path: `/allowance/${path}`, code: 'schema_invalid', detail: expect.any(String) }],
    });
  });

  it('an unknown member (the schema is closed), a non-object, and a custom base path', () => {
    const result = parseAcpAllowance({ ...VALID, 'payment/method': 1 }, '/body/allowance');
    expect(result.ok ? [] : result.errors.map((e) => e.path)).toEqual(['/body/allowance/payment~1method']);
    expect(parseAcpAllowance([VALID])).toMatchObject({ ok: false, errors: [{ path: '/allowance' }] });
  });

  it('an offset expiry is normalised to UTC', () => {
    const result = parseAcpAllowance({ ...VALID, expires_at: '2026-10-09T09:20:50+02:00' });
    expect(result.ok && result.allowance.expiresAt).toBe('2026-10-09T07:20:50.000Z');
  });
});

describe('acpAllowanceToScope', () => {
  it('a one-time allowance is an exact, single-use scope in major units', () => {
    const parsed = parseAcpAllowance({ ...VALID, currency: 'jpy', max_amount: 1500 });
    if (!parsed.ok) throw new Error('unexpected');
    expect(acpAllowanceToScope(parsed.allowance, { merchant: MERCHANT, nowSeconds: 1_780_000_000 })).toEqual({
      ok: true,
      scope: {
        max_amount_per_purchase: { amount: 1500, currency: 'JPY' },
        budget: { amount: 1500, currency: 'JPY', period: 'total' },
        allowed_merchants: [MERCHANT],
        valid_until: '2026-10-09T07:20:50.520Z',
      },
      singleUse: true,
      checkoutSessionId: 'csn_01HV3P3XYZ9ABC',
    });
  });

  it('an expired allowance is refused', () => {
    const parsed = parseAcpAllowance(VALID);
    if (!parsed.ok) throw new Error('unexpected');
    expect(acpAllowanceToScope(parsed.allowance, { merchant: MERCHANT, nowSeconds: 1_800_000_000 })).toEqual({
      ok: false,
      errors: [{ path: '/allowance/expires_at', code: 'expired', detail: expect.any(String) }],
    });
  });
});
