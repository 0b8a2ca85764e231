import { describe, expect, it } from 'vitest';
import {
  findAp2CardNumber,
  mandateDigest,
  verifyAp2Presentation,
  type Ap2VerifyOptions,
} from '../../src/mandates/index.ts';
import { AP2_DIR, ap2SchemaValidator, docTokens } from './support/ap2-vectors.ts';
import { newKey } from './support/build-chain.ts';

// The six encoded examples of the AP2 documentation (google-agentic-commerce/AP2 docs/ap2/payment_mandate.md and
// checkout_mandate.md, read from ../shared/vectors/ap2, never copied into the project). Their root issuer key is not
// published, so the verifier must refuse every one of them with issuer_key_unknown and NOTHING else: every other
// check that can be made on them (disclosure digests, nested array disclosures, sd_hash, the key-binding signature
// against the disclosed cnf key, aud, the checkout_hash of the checkout_jwt, the AP2 schemas) passes.
// Tokens 1 and 4 are closed mandates alone: their single hop is a kb+sd-jwt whose signer is the cnf key of an open
// mandate not included, and whose sd_hash covers that absent SD-JWT. On them only the disclosures, the claims of the
// key binding (aud, nonce, iat), the schema and (token 4) the checkout_hash can be checked; their signature cannot
// (issuer_key_unknown, the same refusal: no configured key can be named for them).
const tokens = docTokens();
const NOW = 1_777_342_380; // between the examples' iat (1777342357 .. 1777342376) and exp (1777345957)

function options(extra: Partial<Ap2VerifyOptions> = {}): Ap2VerifyOptions {
  return {
    issuers: [],
    nowSeconds: NOW,
    audiences: ['credential-provider', 'merchant'],
    validateContent: ap2SchemaValidator(),
    ...extra,
  };
}

describe.skipIf(!AP2_DIR)('AP2 documentation tokens', () => {
  it('are the six published examples, and the schema validator is live', () => {
    expect(tokens).toHaveLength(6);
    const validate = ap2SchemaValidator();
    expect(validate('mandate.payment.1', { vct: 'mandate.payment.1', transaction_id: 1 })).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '/transaction_id' })]),
    );
  });

  it.each(tokens.map((t, i) => [i, t.example, t.token] as const))(
    'token %i (%s): the only error is issuer_key_unknown',
    async (_, __, token) => {
      const result = await verifyAp2Presentation(token, options());
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors).toEqual([
        {
          code: 'issuer_key_unknown',
          path:
            token.includes('~~') || !token.startsWith('eyJhbGciOiAiRVMyNTYiLCAidHlwIjogImtiK3Nk')
              ? '/presentation/hops/0/header/kid'
              : '/presentation/hops/0/header',
          detail: expect.any(String),
        },
      ]);
      // every disclosure of every hop was resolved: no digest is left in the mandate contents
      expect(JSON.stringify(result.partial?.hops.map((h) => h.mandates))).not.toContain('"..."');
      expect(result.partial?.hops.every((h) => h.mandates.length === 1)).toBe(true);
      expect(result.partial?.digest).toBe(mandateDigest(token));
      expect(findAp2CardNumber(result.partial!)).toBeUndefined(); // `Card ••••4242` is no card number
    },
  );

  it('the chained payment (token 2): sd_hash and the key-binding signature pass against the disclosed cnf', async () => {
    const token = tokens[2]?.token ?? '';
    const result = await verifyAp2Presentation(token, options());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const partial = result.partial!;
    expect(partial.hops).toHaveLength(2);
    expect(partial.hops[1]?.signerKey).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      x: 'QpSyxPQHy38xckyvDr54gZ3T42zj9iLtV4koyb5U27c',
    });
    expect(partial.hops[0]?.signerKey).toBeUndefined();
    expect(partial.open.payment?.content).toMatchObject({
      vct: 'mandate.payment.open.1',
      constraints: [
        { type: 'payment.amount_range', currency: 'USD', max: 20000, min: 0 },
        { type: 'payment.allowed_payees', allowed: [{ id: 'merchant_1', name: 'Demo Merchant' }] },
        { type: 'payment.reference', conditional_transaction_id: 'FzLoxbbtgQGYZxoSM2NJYJtkFTSsdfUBoVEQ12k7JN8' },
      ],
    });
    expect(partial.closed.payment?.content).toMatchObject({ payment_amount: { amount: 19900, currency: 'USD' } });
    expect(partial.openPart).toBe(token.slice(0, token.indexOf('~~') + 1));
    expect(partial.nonces).toEqual([
      {
        keyThumbprint: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        nonce: 'a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3',
        hop: 1,
      },
    ]);
    expect(partial.expiresAt).toBe(1777345957);
  });

  it('the chained checkout (token 5): the closed checkout binds to the open checkout and to its checkout_jwt', async () => {
    const result = await verifyAp2Presentation(tokens[5]?.token ?? '', options());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.code)).toEqual(['issuer_key_unknown']);
    expect(result.partial?.closed.checkout?.content).toMatchObject({
      vct: 'mandate.checkout.1',
      checkout_hash: 'NivWhuqfzcvZNapvIEJ2-3tsdQLkiuIcye2g46WVgX8',
      checkout_jwt: expect.stringMatching(/^eyJ/),
    });
    // the open payment mandate of token 2 references this open checkout SD-JWT by its hash
    const openCheckout = (tokens[5]?.token ?? '').split('~~')[0] + '~';
    expect(mandateDigest(openCheckout)).toBe('FzLoxbbtgQGYZxoSM2NJYJtkFTSsdfUBoVEQ12k7JN8');
  });

  it('with a configured issuer of the same kid but another key: signature_invalid, not accepted', async () => {
    const other = await newKey('ES256', 'agent-provider-key-1');
    const result = await verifyAp2Presentation(
      tokens[0]?.token ?? '',
      options({ issuers: [{ issuer: 'https://agent-provider.example', keys: [other.publicJwk] }] }),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.code)).toEqual(['signature_invalid']);
  });

  it('another audience refuses the key-binding hops (audience_mismatch beside issuer_key_unknown)', async () => {
    const result = await verifyAp2Presentation(tokens[2]?.token ?? '', options({ audiences: ['https://aar.example'] }));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.map((e) => [e.code, e.path])).toEqual([
        ['issuer_key_unknown', '/presentation/hops/0/header/kid'],
        ['audience_mismatch', '/presentation/hops/1/payload/aud'],
      ]);
    }
  });

  it('checked at the current time, they are all expired too', async () => {
    const result = await verifyAp2Presentation(tokens[0]?.token ?? '', options({ nowSeconds: 1_800_000_000 }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.code)).toEqual(['issuer_key_unknown', 'expired']);
  });
});
