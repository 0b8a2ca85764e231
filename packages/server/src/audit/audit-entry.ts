/**
 * One audit entry: the leaf of the Merkle tree. It commits to its record by digest, never by content, so personal
 * data stays out of the write-once chain (erasure deletes the data; the chain keeps only hashes), and it names the
 * leaf hash of the entry before it, so the entries also form a hash chain.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '@aar/core';

export const AUDIT_ENTRY_SCHEMA = 'ns.audit_entry.v1';
/** `prev_leaf_hash` of entry 0 */
export const GENESIS_PREV = '';

export interface AuditEntry {
  schema_version: typeof AUDIT_ENTRY_SCHEMA;
  audit_id: string;
  index: number;
  occurred_at: string;
  /** the event type or operation, e.g. `ns.purchase_authority.allowed` */
  kind: string;
  /** the id of what changed (a decision, grant, token, key); for entities, a salted commitment, never the id */
  subject_ref: string;
  /** `sha-256:` + base64url of SHA-256 over the RFC 8785 bytes of the record */
  record_digest: string;
  /** standard base64 leaf hash of entry `index - 1` (empty for entry 0) */
  prev_leaf_hash: string;
}

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
