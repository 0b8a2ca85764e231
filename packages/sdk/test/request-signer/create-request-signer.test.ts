import { describe, expect, it } from 'vitest';
import type { Ed25519PublicJwk } from '@aar/core';
import { contentDigest, tryDecodeBase64Url, verifyRequestSignature } from '@aar/core';
import type { Ed25519PrivateJwk } from '../../src/index.ts';
import { createRequestSigner } from '../../src/index.ts';

const AGENT = 'ns:entity:agent:shopper-1';
const url = 'https://aar.example/v1/runtime/authorize';
const body = JSON.stringify({ subject: 'ns:capability:payment_action:card_purchase', resource: { amount: 12.5 } });

async function makeAgentKey(): Promise<{
  privateJwk: Ed25519PrivateJwk;
  pair: CryptoKeyPair;
  publicJwk: Ed25519PublicJwk;
}> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  const privateJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, d: jwk.d! } as const;
  return { privateJwk, pair, publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x! } };
}

const clockNow = (): number => Math.floor(Date.now() / 1000);

describe('createRequestSigner', () => {
  it('signs in two lines, and core verifies the result', async () => {
    const { privateJwk, publicJwk } = await makeAgentKey();
    const signer = createRequestSigner({ keyId: AGENT, privateJwk });
    const headers = await signer.sign({ method: 'POST', url, body });

    expect(headers['content-digest']).toBe(contentDigest(body));
    expect(headers['signature-input']).toMatch(
      /^sig1=\("@method" "@target-uri" "content-digest"\);created=\d+;nonce="[A-Za-z0-9_-]{22}";keyid="ns:entity:agent:shopper-1";alg="ed25519"$/,
    );
    const result = await verifyRequestSignature(
      { method: 'POST', url, headers, body: new TextEncoder().encode(body) },
      (keyid) => (keyid === AGENT ? publicJwk : undefined),
      clockNow(),
    );
    expect(result).toMatchObject({ status: 'valid', keyid: AGENT });
    expect(Math.abs(result.created! - clockNow())).toBeLessThanOrEqual(5);
  });

  it('accepts a WebCrypto CryptoKey as privateKey, and a JWK as privateKey', async () => {
    const { pair, privateJwk, publicJwk } = await makeAgentKey();
    for (const privateKey of [pair.privateKey, privateJwk]) {
      const headers = await createRequestSigner({ keyId: AGENT, privateKey }).sign({ method: 'POST', url, body });
      const result = await verifyRequestSignature({ method: 'POST', url, headers, body }, () => publicJwk, clockNow());
      expect(result.status).toBe('valid');
    }
  });

  it('draws a fresh 128-bit nonce for every request', async () => {
    const { privateJwk } = await makeAgentKey();
    const signer = createRequestSigner({ keyId: AGENT, privateJwk });
    const nonces = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const input = (await signer.sign({ method: 'POST', url, body }))['signature-input'];
      const nonce = /;nonce="([^"]+)"/.exec(input)![1]!;
      expect(tryDecodeBase64Url(nonce)).toHaveLength(16);
      nonces.add(nonce);
    }
    expect(nonces.size).toBe(50);
  });

  it('takes created from the injected clock, so a skewed clock is caught by the verifier', async () => {
    const { privateJwk, publicJwk } = await makeAgentKey();
    const signer = createRequestSigner({ keyId: AGENT, privateJwk, now: () => 1_750_000_000.9 });
    const headers = await signer.sign({ method: 'POST', url, body });
    expect(headers['signature-input']).toContain(';created=1750000000;');
    const late = await verifyRequestSignature({ method: 'POST', url, headers, body }, () => publicJwk, 1_750_000_301);
    expect(late).toMatchObject({ status: 'stale', failure: 'too_old' });
  });

  it('signs the method fetch() will send, and URL objects', async () => {
    const { privateJwk, publicJwk } = await makeAgentKey();
    const headers = await createRequestSigner({ keyId: AGENT, privateJwk }).sign({
      method: 'post',
      url: new URL(url),
      body,
    });
    const result = await verifyRequestSignature({ method: 'POST', url, headers, body }, () => publicJwk, clockNow());
    expect(result.status).toBe('valid');
  });

  it('is refused by the verifier when the body or URL changes after signing', async () => {
    const { privateJwk, publicJwk } = await makeAgentKey();
    const headers = await createRequestSigner({ keyId: AGENT, privateJwk }).sign({ method: 'POST', url, body });
    const changed = await verifyRequestSignature(
      { method: 'POST', url, headers, body: body.replace('12.5', '125') },
      () => publicJwk,
      clockNow(),
    );
    expect(changed).toMatchObject({ status: 'invalid', failure: 'digest_mismatch' });
    const moved = await verifyRequestSignature(
      { method: 'POST', url: `${url}?x=1`, headers, body },
      () => publicJwk,
      clockNow(),
    );
    expect(moved).toMatchObject({ status: 'invalid', failure: 'signature_mismatch' });
  });

  it.each([
    ['a public jwk', (k: Ed25519PrivateJwk) => ({ kty: 'OKP', crv: 'Ed25519', x: k.x })],
    ['another curve', (k: Ed25519PrivateJwk) => ({ ...k, crv: 'X25519' })],
    ['a truncated d', (k: Ed25519PrivateJwk) => ({ ...k, d: k.d.slice(0, 20) })],
    ['a padded d', (k: Ed25519PrivateJwk) => ({ ...k, d: `${k.d}=` })],
    ['no x', (k: Ed25519PrivateJwk) => ({ kty: 'OKP', crv: 'Ed25519', d: k.d })],
    ['a string', () => 'secret'],
  ])('refuses %s at creation', async (_name, mutate) => {
    const { privateJwk } = await makeAgentKey();
    expect(() => createRequestSigner({ keyId: AGENT, privateKey: mutate(privateJwk) as never })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it('refuses a public CryptoKey and an empty key id at creation', async () => {
    const { pair, privateJwk } = await makeAgentKey();
    expect(() => createRequestSigner({ keyId: AGENT, privateKey: pair.publicKey })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => createRequestSigner({ keyId: '', privateJwk })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it('refuses, when signing, a jwk whose x does not match d', async () => {
    const [a, b] = await Promise.all([makeAgentKey(), makeAgentKey()]);
    const signer = createRequestSigner({ keyId: AGENT, privateJwk: { ...a.privateJwk, x: b.privateJwk.x } });
    await expect(signer.sign({ method: 'POST', url, body })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
