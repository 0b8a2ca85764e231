/**
 * Turns the caller's Ed25519 private key (a private JWK, RFC 8037, or a WebCrypto CryptoKey) into a CryptoKey that
 * can sign. The JWK is checked before WebCrypto sees it, so a public key, another curve or a truncated `d` fails
 * with a clear `invalid_request` rather than an engine-specific DataError. The private key never leaves WebCrypto:
 * it is imported non-extractable.
 */
import { AarError, tryDecodeBase64Url } from '@aar/core';

export interface Ed25519PrivateJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** base64url of the 32-byte public key */
  x: string;
  /** base64url of the 32-byte private key */
  d: string;
  kid?: string;
  alg?: string;
}

export type RequestSignerPrivateKey = Ed25519PrivateJwk | CryptoKey;

const ED25519 = { name: 'Ed25519' } as const;

function isCryptoKey(value: unknown): value is CryptoKey {
  return typeof CryptoKey !== 'undefined' && value instanceof CryptoKey;
}

function checkJwk(jwk: unknown): Ed25519PrivateJwk {
  if (typeof jwk !== 'object' || jwk === null)
    throw new AarError('invalid_request', 'the private key must be a jwk or a CryptoKey');
  const { kty, crv, x, d } = jwk as Record<string, unknown>;
  if (kty !== 'OKP' || crv !== 'Ed25519')
    throw new AarError('invalid_request', 'the private jwk must be `OKP` / `Ed25519`');
  if (tryDecodeBase64Url(d)?.length !== 32) {
    throw new AarError('invalid_request', 'the private jwk needs `d`: base64url of 32 bytes');
  }
  if (tryDecodeBase64Url(x)?.length !== 32) {
    throw new AarError('invalid_request', 'the private jwk needs `x`: base64url of 32 bytes');
  }
  return { kty, crv, x: x as string, d: d as string };
}

/** Checks the key's form now (throws `invalid_request`), imports it on first use. */
export function prepareSigningKey(key: unknown): () => Promise<CryptoKey> {
  if (isCryptoKey(key)) {
    if (key.type !== 'private' || key.algorithm.name !== 'Ed25519' || !key.usages.includes('sign')) {
      throw new AarError('invalid_request', 'the CryptoKey must be an Ed25519 private key usable to sign');
    }
    return () => Promise.resolve(key);
  }
  const { kty, crv, x, d } = checkJwk(key);
  let imported: Promise<CryptoKey> | undefined;
  return () => {
    imported ??= globalThis.crypto.subtle
      .importKey('jwk', { kty, crv, x, d }, ED25519, false, ['sign'])
      .catch((error: unknown) => {
        throw new AarError('invalid_request', 'the private jwk is not a valid ed25519 key pair', { cause: error });
      });
    return imported;
  };
}
