import { describe, expect, it } from 'vitest';
import { contentDigest } from '../../src/http-signatures/content-digest.ts';
import { signRequest } from '../../src/http-signatures/sign-request.ts';
import { verifyRequestSignature } from '../../src/http-signatures/verify-request-signature.ts';
import { AGENT, BODY, NOW, TARGET, makeKey, plainRequest } from './fixtures.ts';

describe('signRequest', () => {
  it('returns the three fields of the CONTRACT profile', async () => {
    const key = await makeKey(AGENT);
    const headers = await signRequest(plainRequest(), key.signer, { created: NOW, nonce: 'bm9uY2U' });
    expect(headers['content-digest']).toBe(contentDigest(BODY));
    expect(headers['signature-input']).toBe(
      `sig1=("@method" "@target-uri" "content-digest");created=${NOW};nonce="bm9uY2U";keyid="${AGENT}";alg="ed25519"`,
    );
    expect(headers.signature).toMatch(/^sig1=:[A-Za-z0-9+/]{86}==:$/);
  });

  it('round-trips through the verifier, with options', async () => {
    const key = await makeKey(AGENT);
    const request = plainRequest();
    const headers = await signRequest(request, key.signer, {
      created: NOW,
      nonce: 'n-1',
      expires: NOW + 60,
      label: 'agent',
      components: ['@method', '@target-uri', '@authority', '@path', '@query', 'content-type', 'content-digest'],
    });
    const result = await verifyRequestSignature(
      { ...request, headers: { ...request.headers, ...headers } },
      (id) => (id === AGENT ? key.jwk : undefined),
      NOW,
    );
    expect(result).toEqual({
      status: 'valid',
      label: 'agent',
      keyid: AGENT,
      created: NOW,
      nonce: 'n-1',
      components: ['@method', '@target-uri', '@authority', '@path', '@query', 'content-type', 'content-digest'],
      targetUris: [request.url],
    });
  });

  it('signs its own digest, replacing a stale one the request carried', async () => {
    const key = await makeKey(AGENT);
    const request = plainRequest({ headers: { 'Content-Digest': 'sha-256=:AAAA:' } });
    const headers = await signRequest(request, key.signer, { created: NOW, nonce: 'n' });
    const sent = { ...request, headers: { ...headers } };
    const result = await verifyRequestSignature(sent, () => key.jwk, NOW);
    expect(result.status).toBe('valid');
  });

  it('signs an empty body', async () => {
    const key = await makeKey(AGENT);
    const request = { method: 'POST', url: TARGET };
    const headers = await signRequest(request, key.signer, { created: NOW, nonce: 'n' });
    expect(headers['content-digest']).toBe(contentDigest(new Uint8Array(0)));
    expect((await verifyRequestSignature({ ...request, headers }, () => key.jwk, NOW)).status).toBe('valid');
  });

  it.each([
    ['a float created', { created: NOW + 0.5, nonce: 'n' }],
    ['a negative created', { created: -1, nonce: 'n' }],
    ['an empty nonce', { created: NOW, nonce: '' }],
    ['a nonce with a line break', { created: NOW, nonce: 'a\nb' }],
    ['an uppercase label', { created: NOW, nonce: 'n', label: 'Sig1' }],
    ['a component the request lacks', { created: NOW, nonce: 'n', components: ['@method', 'x-missing'] }],
    ['an unsupported component', { created: NOW, nonce: 'n', components: ['@status'] }],
  ])('refuses %s with invalid_request', async (_name, options) => {
    const key = await makeKey(AGENT);
    await expect(signRequest(plainRequest(), key.signer, options)).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('refuses a key that does not return 64 bytes', async () => {
    const signer = { keyId: AGENT, sign: async () => new Uint8Array(63) };
    await expect(signRequest(plainRequest(), signer, { created: NOW, nonce: 'n' })).rejects.toMatchObject({
      code: 'internal',
    });
  });
});
