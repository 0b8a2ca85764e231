/**
 * The basket binding: `sha-256:` + base64url (no padding) of SHA-256 over the RFC 8785 canonical JSON of the basket.
 * The base64url encoder is written by hand because core has no Buffer and the 32-byte digest needs nothing more.
 */
import canonicalize from 'canonicalize';
import { sha256 } from '@noble/hashes/sha2.js';

export const BASKET_HASH_PATTERN = /^sha-256:[A-Za-z0-9_-]{43}$/;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Throws when the basket cannot be canonicalized (NaN, lone surrogate, cycle); decide turns that into a deny. */
export function computeBasketHash(basket: unknown): string {
  const canonical = canonicalize(basket);
  if (canonical === undefined) throw new Error('basket is not json');
  return `sha-256:${encodeBase64Url(sha256(new TextEncoder().encode(canonical)))}`;
}

function encodeBase64Url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] ?? 0;
    const b1 = bytes[i + 1] ?? 0;
    const b2 = bytes[i + 2] ?? 0;
    const triple = (b0 << 16) | (b1 << 8) | b2;
    const chars = i + 1 >= bytes.length ? 2 : i + 2 >= bytes.length ? 3 : 4;
    for (let c = 0; c < chars; c++) out += ALPHABET[(triple >> (18 - 6 * c)) & 63];
  }
  return out;
}
