/**
 * Ed25519 public keys as JWKs (RFC 8037), the form of `GET /.well-known/jwks.json` (CONTRACT section 4).
 * Attacker assumption: a JWK may arrive from a client (an agent's `public_key_jwk`); parse it, keep only what we
 * know, and refuse private keys outright so one never gets stored or echoed.
 */
import { fieldError } from '../errors/aar-error.ts';
import { encodeBase64Url, tryDecodeBase64Url } from '../encoding/base64url.ts';
import { canonicalBytes } from '../json/canonical-json.ts';
import { appendPointer } from '../json/json-pointer.ts';
import { sha256 } from '@noble/hashes/sha2.js';

export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** base64url of the 32-byte public key */
  x: string;
  kid?: string;
  alg?: string;
  use?: string;
  /** RFC 3339; a rotated key stays published with its window so that old documents keep verifying */
  valid_from?: string;
  valid_until?: string;
}

export interface Jwks {
  keys: Ed25519PublicJwk[];
}

/** `alg` values that name Ed25519: `EdDSA` (RFC 8037) and the fully specified `Ed25519` (RFC 9864). */
const ED25519_ALGS: ReadonlySet<string> = new Set(['EdDSA', 'Ed25519']);
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
const OPTIONAL_STRINGS = ['kid', 'alg', 'use', 'valid_from', 'valid_until'] as const;

/**
 * Validates an Ed25519 public JWK at `path`; throws `invalid_request` naming the member. Unknown members are dropped
 * (RFC 7517 says to ignore them); `jku`, `x5u` and the like are therefore never followed.
 */
export function parsePublicEd25519Jwk(value: unknown, path: string): Ed25519PublicJwk {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fieldError('invalid_request', path, 'must be a jwk object');
  }
  const jwk = value as Record<string, unknown>;
  if (Object.hasOwn(jwk, 'd'))
    throw fieldError('invalid_request', appendPointer(path, 'd'), 'private keys are refused');
  if (jwk.kty !== 'OKP') throw fieldError('invalid_request', appendPointer(path, 'kty'), 'must be `OKP`');
  if (jwk.crv !== 'Ed25519') throw fieldError('invalid_request', appendPointer(path, 'crv'), 'must be `Ed25519`');
  const x = tryDecodeBase64Url(jwk.x);
  if (x === undefined || x.length !== 32) {
    throw fieldError('invalid_request', appendPointer(path, 'x'), 'must be the base64url of 32 bytes');
  }
  const parsed: Ed25519PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string };
  for (const name of OPTIONAL_STRINGS) {
    const member = jwk[name];
    if (member === undefined) continue;
    if (typeof member !== 'string' || member.length === 0 || member.length > 256) {
      throw fieldError('invalid_request', appendPointer(path, name), 'must be a non-empty string');
    }
    parsed[name] = member;
  }
  if (parsed.alg !== undefined && !ED25519_ALGS.has(parsed.alg)) {
    throw fieldError('invalid_request', appendPointer(path, 'alg'), 'must be `EdDSA` or `Ed25519`');
  }
  if (parsed.use !== undefined && parsed.use !== 'sig') {
    throw fieldError('invalid_request', appendPointer(path, 'use'), 'must be `sig`');
  }
  for (const name of ['valid_from', 'valid_until'] as const) {
    const member = parsed[name];
    if (member !== undefined && !RFC3339.test(member)) {
      throw fieldError('invalid_request', appendPointer(path, name), 'must be an rfc 3339 timestamp');
    }
  }
  return parsed;
}

/** The public JWK of a raw 32-byte Ed25519 public key, with optional members (`kid`, `alg`, validity window). */
export function toEd25519PublicJwk(
  publicKey: Uint8Array,
  members: Omit<Ed25519PublicJwk, 'kty' | 'crv' | 'x'> = {},
): Ed25519PublicJwk {
  return parsePublicEd25519Jwk({ ...members, kty: 'OKP', crv: 'Ed25519', x: encodeBase64Url(publicKey) }, '');
}

/** RFC 7638 thumbprint: base64url SHA-256 of `{"crv","kty","x"}` in canonical form (RFC 8037 section 2). */
export async function jwkThumbprint(jwk: Ed25519PublicJwk): Promise<string> {
  const { crv, kty, x } = parsePublicEd25519Jwk(jwk, '');
  return encodeBase64Url(sha256(canonicalBytes({ crv, kty, x })));
}
