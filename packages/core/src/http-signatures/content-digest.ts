/**
 * RFC 9530 Content-Digest: a dictionary of `<algorithm>=:<base64 digest>:`. We send `sha-256` and accept `sha-256`
 * and `sha-512`. Attacker assumption: the field is hostile. Members of other algorithms are ignored as RFC 9530
 * section 2 allows (they can neither help nor hurt: a supported member must be present and match), but a
 * supported member of the wrong shape or length makes the whole field malformed, never skipped.
 */
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { encodeBase64 } from '../encoding/base64.ts';
import { bodyBytes } from './http-request.ts';
import { parseDictionary } from './parse-structured-field.ts';

export type ContentDigestAlgorithm = 'sha-256' | 'sha-512';

export type ContentDigestFailure = 'missing_digest' | 'malformed_digest' | 'unsupported_digest' | 'digest_mismatch';

export interface ContentDigestResult {
  valid: boolean;
  /** the supported members that were compared (all of them matched when `valid`) */
  algorithms: ContentDigestAlgorithm[];
  failure?: ContentDigestFailure;
}

const ALGORITHMS: Record<ContentDigestAlgorithm, (bytes: Uint8Array) => Uint8Array> = {
  'sha-256': sha256,
  'sha-512': sha512,
};

/** `sha-256=:<base64 of SHA-256(body)>:`, the Content-Digest field value for `body`. */
export function contentDigest(body: Uint8Array | string): string {
  return `sha-256=:${encodeBase64(sha256(bodyBytes(body)))}:`;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/** Checks a Content-Digest field against the body bytes. Never throws. */
export function verifyContentDigest(header: string | undefined, body: Uint8Array | string): ContentDigestResult {
  if (header === undefined) return { valid: false, algorithms: [], failure: 'missing_digest' };
  const dictionary = parseDictionary(header);
  if (dictionary === undefined) return { valid: false, algorithms: [], failure: 'malformed_digest' };
  let bytes: Uint8Array;
  try {
    bytes = bodyBytes(body);
  } catch {
    return { valid: false, algorithms: [], failure: 'digest_mismatch' };
  }
  const algorithms: ContentDigestAlgorithm[] = [];
  let matches = true;
  for (const [name, member] of dictionary) {
    if (name !== 'sha-256' && name !== 'sha-512') continue;
    const hash = ALGORITHMS[name];
    if (member.kind !== 'item' || member.value.type !== 'bytes' || member.params.size !== 0) {
      return { valid: false, algorithms, failure: 'malformed_digest' };
    }
    const expected = hash(bytes);
    if (member.value.value.length !== expected.length) return { valid: false, algorithms, failure: 'malformed_digest' };
    algorithms.push(name);
    if (!bytesEqual(member.value.value, expected)) matches = false;
  }
  if (algorithms.length === 0) return { valid: false, algorithms, failure: 'unsupported_digest' };
  return matches ? { valid: true, algorithms } : { valid: false, algorithms, failure: 'digest_mismatch' };
}
