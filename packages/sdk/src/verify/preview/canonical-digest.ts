/**
 * base64url SHA-256 of a JSON value's RFC 8785 bytes: the digest the memory documents use for `content_digest`
 * (over `{ content, salt }`), `record_digest` and the tombstone chain's links (over the signed document). core's
 * partDigest is the same SHA-256 over the same canonical bytes, in hex; only the encoding differs.
 */
import { decodeHex, encodeBase64Url, partDigest } from '@aar/core';

export function canonicalDigest(value: unknown): string {
  return encodeBase64Url(decodeHex(partDigest(value)));
}
