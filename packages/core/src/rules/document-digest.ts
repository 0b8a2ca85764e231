/**
 * The digest of a published policy document (rule pack, dictionary, sector pack): `sha-256:` + base64url (no
 * padding) of SHA-256 over the RFC 8785 bytes of the document without its `signature` member: the same bytes the
 * signature covers (CONTRACT section 4), so a digest names exactly what was signed.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeBase64Url } from '../encoding/base64url.ts';
import { signingBytes } from '../signing/sign-document.ts';

export const POLICY_DIGEST_PATTERN = /^sha-256:[A-Za-z0-9_-]{43}$/;

/** Throws `invalid_json` when `doc` is not a canonicalizable JSON object. */
export function policyDocumentDigest(doc: object): string {
  return `sha-256:${encodeBase64Url(sha256(signingBytes(doc)))}`;
}
