import { readSharedJson } from '../../../../vectors/lib/shared-vectors.ts';
import { describe, expect, it } from 'vitest';
import { decodeBase64Url } from '../../src/encoding/base64url.ts';
import { encodeBase64 } from '../../src/encoding/base64.ts';
import { ed25519Verify } from '../../src/signing/ed25519.ts';
import { parsePublicEd25519Jwk } from '../../src/signing/ed25519-jwk.ts';
import { signatureBase } from '../../src/http-signatures/signature-base.ts';
import { verifyRequestSignature } from '../../src/http-signatures/verify-request-signature.ts';
import type { SignableRequest } from '../../src/http-signatures/http-request.ts';

interface Vector {
  key: { kty: string; crv: string; kid: string; x: string; d: string };
  request: { method: string; authority: string; path: string; headers: Record<string, string>; body: string };
  signature_base: string;
  signature_input: string;
  signature: string;
}

// RFC 9421 B.1.4 and B.2.6, read from ../shared/vectors (never copied into the project)
const shared = readSharedJson<Vector>('http-signatures', 'rfc9421-b26.json');
const vector: Vector = shared ?? {
  key: { kty: '', crv: '', kid: '', x: '', d: '' },
  request: { method: '', authority: '', path: '', headers: {}, body: '' },
  signature_base: '',
  signature_input: '',
  signature: '',
};
const request: SignableRequest = {
  method: vector.request.method,
  url: `https://${vector.request.authority}${vector.request.path}`,
  headers: vector.request.headers,
  body: vector.request.body,
};
const components = ['date', '@method', '@path', '@authority', 'content-type', 'content-length'];
const created = 1618884473;
const signatureBytes = (): Uint8Array => {
  const match = /^sig-b26=:([A-Za-z0-9+/=]+):$/.exec(vector.signature);
  return Uint8Array.from(atob(match![1]!), (c) => c.charCodeAt(0));
};

describe.skipIf(!shared)('RFC 9421 Appendix B.2.6 (Ed25519)', () => {
  it('rebuilds the signature base byte for byte', () => {
    const base = signatureBase(components, request, { created, keyid: vector.key.kid });
    expect(base).toBe(vector.signature_base);
    expect(`sig-b26=${base.slice(base.lastIndexOf(': ') + 2)}`).toBe(vector.signature_input);
  });

  it('verifies the published signature with the B.1.4 public key', async () => {
    const { d: _d, ...publicJwk } = vector.key;
    const publicKey = decodeBase64Url(parsePublicEd25519Jwk(publicJwk, '').x);
    const message = new TextEncoder().encode(vector.signature_base);
    expect(signatureBytes()).toHaveLength(64);
    expect(await ed25519Verify(publicKey, message, signatureBytes())).toBe(true);
    const tampered = new TextEncoder().encode(vector.signature_base.replace('POST', 'GET'));
    expect(await ed25519Verify(publicKey, tampered, signatureBytes())).toBe(false);
  });

  it('re-signs the base to the published signature with the B.1.4 private key (Ed25519 is deterministic)', async () => {
    const privateKey = await crypto.subtle.importKey('jwk', vector.key, { name: 'Ed25519' }, false, ['sign']);
    const message = new TextEncoder().encode(signatureBase(components, request, { created, keyid: vector.key.kid }));
    const signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, privateKey, message));
    expect(`sig-b26=:${encodeBase64(signature)}:`).toBe(vector.signature);
  });

  it('verifies with the derived component set it uses, and the agent profile refuses what it lacks', async () => {
    const signed: SignableRequest = {
      ...request,
      headers: { ...vector.request.headers, 'signature-input': vector.signature_input, signature: vector.signature },
    };
    const { d: _d, ...publicJwk } = vector.key;
    const resolve = (keyid: string) => (keyid === vector.key.kid ? parsePublicEd25519Jwk(publicJwk, '') : undefined);
    // The agent profile requires a nonce: the RFC example has none, so it stops there.
    const profile = await verifyRequestSignature(signed, resolve, created, { requiredComponents: components });
    expect(profile).toMatchObject({ status: 'invalid', failure: 'missing_nonce', keyid: vector.key.kid, created });
    const agent = await verifyRequestSignature(signed, resolve, created);
    expect(agent).toMatchObject({ status: 'invalid', failure: 'missing_component', component: '@target-uri' });
  });
});
