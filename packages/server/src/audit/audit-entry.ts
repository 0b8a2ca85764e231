/**
 * One audit entry: the leaf of the Merkle tree. It commits to its record by digest, never by content, so personal
 * data stays out of the write-once chain (erasure deletes the data; the chain keeps only hashes), and it names the
 * leaf hash of the entry before it, so the entries also form a hash chain.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, type AuditEntryJson } from '@aar/core';

/** `prev_leaf_hash` of entry 0 */
export const GENESIS_PREV = '';

/** The entry's shape is core's (packs carry it and core verifies it): one definition for writer and verifier. */
export { AUDIT_ENTRY_SCHEMA } from '@aar/core';
export type AuditEntry = AuditEntryJson;

export function recordDigest(record: unknown): string {
  return digestOfCanonical(canonicalJson(record));
}

/** The `record_digest` of a record whose RFC 8785 text the caller already has. */
export function digestOfCanonical(canonicalText: string): string {
  return `sha-256:${createHash('sha256').update(canonicalText, 'utf8').digest('base64url')}`;
}

/** The leaf bytes and their RFC 9162 leaf hash (SHA-256 of 0x00 || bytes). */
export function encodeEntry(entry: AuditEntry): { text: string; leafHash: Buffer } {
  const text = canonicalJson(entry);
  const leafHash = createHash('sha256')
    .update(Buffer.from([0]))
    .update(text, 'utf8')
    .digest();
  return { text, leafHash };
}
