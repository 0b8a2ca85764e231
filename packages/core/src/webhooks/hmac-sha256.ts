/**
 * HMAC-SHA256 through WebCrypto. Verification is WebCrypto's own `verify`, which compares in constant time (Node:
 * CRYPTO_memcmp), after a length check on the received MAC (its length is public: 32 bytes or refused).
 */
import { toBufferSource } from '../signing/ed25519.ts';

const HMAC = { name: 'HMAC', hash: 'SHA-256' } as const;

function importHmacKey(key: Uint8Array, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey('raw', toBufferSource(key), HMAC, false, [usage]);
}

export async function hmacSha256(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await importHmacKey(key, 'sign');
  return new Uint8Array(await globalThis.crypto.subtle.sign(HMAC, cryptoKey, toBufferSource(message)));
}

/** True when `mac` is the HMAC-SHA256 of `message` under `key`; constant time in the MAC's content. */
export async function hmacSha256Verify(key: Uint8Array, message: Uint8Array, mac: Uint8Array): Promise<boolean> {
  if (mac.length !== 32) return false;
  const cryptoKey = await importHmacKey(key, 'verify');
  return globalThis.crypto.subtle.verify(HMAC, cryptoKey, toBufferSource(mac), toBufferSource(message));
}
