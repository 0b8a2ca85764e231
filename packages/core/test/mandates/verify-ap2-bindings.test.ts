import { calculateJwkThumbprint, exportJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  AP2_MAX_HOPS,
  mandateDigest,
  verifyAp2Presentation,
  type Ap2VerifyOptions,
  type MandateErrorCode,
} from '../../src/mandates/index.ts';
import { AP2_DIR, ap2SchemaValidator } from './support/ap2-vectors.ts';
import {
  AUDIENCE,
  ISSUER,
  NOW,
  agentProviderChain,
  chain,
  closedPaymentContent,
  issueHop,
  kbHop,
  openPaymentContent,
  parties,
  type Parties,
} from './support/build-chain.ts';

// The checkout <-> payment bindings of AP2 (checkout_mandate.md, payment_mandate.md) inside one chain, and the
// remaining structural rules of the chain: the hop limit, a key-binding first hop, what a configured issuer key may be.

const p: Parties = await parties();

function options(extra: Partial<Ap2VerifyOptions> = {}): Ap2VerifyOptions {
  return {
    issuers: p.issuers,
    nowSeconds: NOW,
    audiences: [AUDIENCE],
    ...(AP2_DIR === undefined ? {} : { validateContent: ap2SchemaValidator() }),
    ...extra,
  };
}

async function codes(
  presentation: string,
  extra: Partial<Ap2VerifyOptions> = {},
): Promise<Array<[MandateErrorCode, string]>> {
  const result = await verifyAp2Presentation(presentation, options(extra));
  return result.ok ? [] : result.errors.map((e) => [e.code, e.path]);
}

// a merchant-signed checkout JWT as the agent receives it (its signature is the merchant's business, not checked here)
const CHECKOUT_JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJpZCI6ImNoZWNrb3V0XzEiLCJ0b3RhbCI6MTk5MDB9.c2lnbmF0dXJl';

async function checkoutChain(closedCheckout: Record<string, unknown>, closedPayment: Record<string, unknown>) {
  const open = await issueHop(
    p.issuer,
    { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
    {
      iss: ISSUER,
      delegate_payload: [
        {
          vct: 'mandate.checkout.open.1',
          constraints: [
            {
              type: 'checkout.line_items',
              items: [{ id: 'line_1', acceptable_items: [{ id: 'sku_1', title: 'Shoe' }], quantity: 1 }],
            },
            { type: 'checkout.allowed_merchants', allowed: [{ id: 'merchant_1', name: 'Demo Merchant' }] },
          ],
          cnf: { jwk: p.agent.publicJwk },
          exp: NOW + 3600,
        },
        openPaymentContent(p.agent.publicJwk),
      ],
    },
    { delegate_payload: { _sd: [0, 1] } },
  );
  const closed = await issueHop(
    p.agent,
    { typ: 'kb+sd-jwt' },
    {
      delegate_payload: [closedCheckout, closedPayment],
      iat: NOW - 5,
      aud: AUDIENCE,
      nonce: 'checkout-nonce-1',
      sd_hash: mandateDigest(open),
    },
    // the checkout_jwt is itself selectively disclosed inside the closed checkout, as in the AP2 example
    { delegate_payload: { _sd: [0, 1], 0: { _sd: ['checkout_jwt'] } } },
  );
  return chain(open, closed);
}

const closedCheckout = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  vct: 'mandate.checkout.1',
  checkout_jwt: CHECKOUT_JWT,
  checkout_hash: mandateDigest(CHECKOUT_JWT),
  ...overrides,
});

describe('checkout <-> payment bindings', () => {
  it('open checkout + open payment ~~ closed checkout + closed payment, bound by the checkout hash: accepted', async () => {
    const presentation = await checkoutChain(
      closedCheckout(),
      closedPaymentContent({ transaction_id: mandateDigest(CHECKOUT_JWT) }),
    );
    const result = await verifyAp2Presentation(presentation, options());
    expect(result.ok ? [] : result.errors).toEqual([]);
    if (!result.ok) return;
    expect(result.value.closed.checkout?.content.checkout_jwt).toBe(CHECKOUT_JWT);
    expect(Object.keys(result.value.open)).toEqual(['checkout', 'payment']);
  });

  it('a checkout_hash that is not the hash of the disclosed checkout_jwt: sd_hash_mismatch', async () => {
    const presentation = await checkoutChain(
      closedCheckout({ checkout_hash: mandateDigest('another checkout') }),
      closedPaymentContent({ transaction_id: mandateDigest('another checkout') }),
    );
    expect(await codes(presentation)).toEqual([['sd_hash_mismatch', '/presentation/hops/1/mandates/0/checkout_hash']]);
  });

  it('a closed payment whose transaction_id names another checkout: sd_hash_mismatch', async () => {
    const presentation = await checkoutChain(closedCheckout(), closedPaymentContent());
    expect(await codes(presentation)).toEqual([['sd_hash_mismatch', '/presentation/hops/1/mandates/1/transaction_id']]);
  });
});

describe('chain structure', () => {
  it(`more than ${AP2_MAX_HOPS} hops: schema_invalid`, async () => {
    const { open } = await agentProviderChain(p);
    expect(await codes(Array.from({ length: AP2_MAX_HOPS + 1 }, () => open.slice(0, -1)).join('~~') + '~')).toEqual([
      ['schema_invalid', '/presentation'],
    ]);
  });

  it('a key-binding hop first is issuer_key_unknown even with issuers configured', async () => {
    const { open } = await agentProviderChain(p);
    const closed = await kbHop(p.agent, open, [closedPaymentContent()]);
    expect(await codes(closed)).toEqual([['issuer_key_unknown', '/presentation/hops/0/header']]);
  });

  it('a previous hop that discloses no cnf key: key_binding_invalid (and sd_hash_mismatch, orphaned payees)', async () => {
    const { open, presentation } = await agentProviderChain(p);
    const withoutContent = open
      .split('~')
      .filter((part) => !Buffer.from(part, 'base64url').toString('utf8').includes('mandate.payment.open.1'))
      .join('~');
    expect(await codes(presentation.replace(open, withoutContent))).toEqual([
      // the payees' digests were inside the dropped content: their disclosures are referenced by nothing presented
      ['disclosure_digest_mismatch', '/presentation/hops/0/disclosures/0'],
      ['disclosure_digest_mismatch', '/presentation/hops/0/disclosures/1'],
      ['key_binding_invalid', '/presentation/hops/1/jws/signature'],
      ['sd_hash_mismatch', '/presentation/hops/1/payload/sd_hash'],
    ]);
  });

  it('the nonce is returned with the RFC 7638 thumbprint of the key that signed its hop', async () => {
    const { presentation } = await agentProviderChain(p, { kb: { nonce: 'n-0001' } });
    const result = await verifyAp2Presentation(presentation, options());
    expect(result.ok && result.value.nonces).toEqual([
      { keyThumbprint: await calculateJwkThumbprint(p.agent.publicJwk, 'sha256'), nonce: 'n-0001', hop: 1 },
    ]);
  });

  it('configured keys: a private JWK is used by its public part; a key declared for another alg is not used', async () => {
    const { presentation } = await agentProviderChain(p);
    const privateJwk = { ...(await exportJWK(p.issuer.privateKey)), kid: 'issuer-key-1' };
    expect(await codes(presentation, { issuers: [{ issuer: ISSUER, keys: [privateJwk] }] })).toEqual([]);
    const es384 = { ...p.issuer.publicJwk, alg: 'ES384' };
    expect(await codes(presentation, { issuers: [{ issuer: ISSUER, keys: [es384] }] })).toEqual([
      ['signature_invalid', '/presentation/hops/0/jws/signature'],
    ]);
  });

  it('a non-string iss names no issuer: issuer_key_unknown', async () => {
    const open = await issueHop(
      p.issuer,
      { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
      { iss: 42, delegate_payload: [openPaymentContent(p.agent.publicJwk)] },
      { delegate_payload: { _sd: [0] } },
    );
    expect(await codes(open)).toEqual([['issuer_key_unknown', '/presentation/hops/0/header/kid']]);
  });
});
