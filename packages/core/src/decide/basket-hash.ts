/**
 * The basket binding: `sha-256:` + base64url (no padding) of SHA-256 over the RFC 8785 canonical JSON of the basket.
 */
import canonicalize from 'canonicalize';
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeBase64Url } from '../encoding/base64url.ts';

export const BASKET_HASH_PATTERN = /^sha-256:[A-Za-z0-9_-]{43}$/;

/** Throws when the basket cannot be canonicalized (NaN, lone surrogate, cycle); decide turns that into a deny. */
export function computeBasketHash(basket: unknown): string {
  const canonical = canonicalize(basket);
  if (canonical === undefined) throw new Error('basket is not json');
  return `sha-256:${encodeBase64Url(sha256(new TextEncoder().encode(canonical)))}`;
}
