/**
 * RFC 9562 name-based UUIDs, version 5 (SHA-1): the same name in the same namespace gives the same UUID. OSCAL
 * accepts only version 4 or 5 UUIDs, and an export must be reproducible from its signed projection, so its
 * UUIDs are derived from our ids rather than drawn at random. SHA-1 is what version 5 is defined with; it names,
 * it protects nothing.
 */
import { sha1 } from '@noble/hashes/legacy.js';
import { decodeHex, encodeHex } from '../encoding/hex.ts';
import { utf8Encode } from '../encoding/utf8.ts';

/** RFC 9562 appendix A: the URL namespace. */
export const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

export function nameBasedUuid(name: string, namespace: string = URL_NAMESPACE): string {
  const ns = namespace.replaceAll('-', '');
  if (!/^[0-9a-f]{32}$/i.test(ns)) throw new TypeError('namespace must be a uuid');
  const nsBytes = decodeHex(ns.toLowerCase());
  const nameBytes = utf8Encode(name);
  const input = new Uint8Array(nsBytes.length + nameBytes.length);
  input.set(nsBytes);
  input.set(nameBytes, nsBytes.length);
  const hash = sha1(input).slice(0, 16);
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = encodeHex(hash);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
