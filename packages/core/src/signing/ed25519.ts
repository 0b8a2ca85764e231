/**
 * Ed25519 verification through WebCrypto (Node 20 and current browsers), strict about encodings:
 * a 32-byte key, a 64-byte signature and S < L. Node's WebCrypto already refuses S >= L (all 151 Wycheproof cases
 * agree with it, test/signing/ed25519-wycheproof.test.ts); the explicit check keeps signatures non-malleable on
 * every runtime, whatever its library does.
 */
import { AarError } from '../errors/aar-error.ts';
import type { Ed25519PublicJwk } from './ed25519-jwk.ts';
import { parsePublicEd25519Jwk } from './ed25519-jwk.ts';
import { decodeBase64Url } from '../encoding/base64url.ts';

/** The order of the Ed25519 base point (RFC 8032 section 5.1). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

export const ED25519_ALGORITHM = { name: 'Ed25519' } as const;

/** WebCrypto's types want an ArrayBuffer-backed view; a copy also shields the caller's buffer. */
export function toBufferSource(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}

/** True if the little-endian scalar S (the second half of a signature) is below L. */
export function isCanonicalScalar(s: Uint8Array): boolean {
  let value = 0n;
  for (let i = s.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(s[i] as number);
  return s.length === 32 && value < L;
}

/** Imports a public key for `verify`; throws `invalid_request` unless it is a valid Ed25519 public key. */
export async function importEd25519PublicKey(key: Ed25519PublicJwk | Uint8Array): Promise<CryptoKey> {
  const raw = key instanceof Uint8Array ? key : decodeBase64Url(parsePublicEd25519Jwk(key, '').x, '/x');
  if (raw.length !== 32) throw new AarError('invalid_request', 'an ed25519 public key is 32 bytes');
  try {
    return await globalThis.crypto.subtle.importKey('raw', toBufferSource(raw), ED25519_ALGORITHM, true, ['verify']);
  } catch (error) {
    throw new AarError('invalid_request', 'not a valid ed25519 public key', { cause: error });
  }
}

/**
 * Imported verification keys by their 32 bytes: importing costs more than verifying, and a service verifies the same
 * few keys (its own, its agents') again and again. A CryptoKey holds no secret and is immutable; the cache is bounded.
 */
const VERIFY_KEYS = new Map<string, Promise<CryptoKey>>();
const VERIFY_KEYS_LIMIT = 10_000;

function verifyKeyFor(publicKey: Uint8Array): Promise<CryptoKey> {
  let id = '';
  for (const byte of publicKey) id += String.fromCharCode(byte);
  let key = VERIFY_KEYS.get(id);
  if (!key) {
    if (VERIFY_KEYS.size >= VERIFY_KEYS_LIMIT) VERIFY_KEYS.clear();
    key = globalThis.crypto.subtle.importKey('raw', toBufferSource(publicKey), ED25519_ALGORITHM, false, ['verify']);
    // a key that fails to import is not kept: the next call tries again and fails the same way
    key.catch(() => VERIFY_KEYS.delete(id));
    VERIFY_KEYS.set(id, key);
  }
  return key;
}

/** Verifies an Ed25519 signature; false (never a throw) for any malformed key or signature. */
export async function ed25519Verify(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) return false;
  if (!(signature instanceof Uint8Array) || signature.length !== 64) return false;
  if (!(message instanceof Uint8Array)) return false;
  if (!isCanonicalScalar(signature.subarray(32))) return false;
  try {
    const key = await verifyKeyFor(publicKey);
    return await globalThis.crypto.subtle.verify(
      ED25519_ALGORITHM,
      key,
      toBufferSource(signature),
      toBufferSource(message),
    );
  } catch {
    return false;
  }
}
