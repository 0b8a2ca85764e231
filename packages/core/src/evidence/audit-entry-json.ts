/**
 * The audit entry on the wire (`ns.audit_entry.v1`, CONTRACT section 8): the leaf of the Merkle tree. Its bytes are
 * its RFC 8785 JSON; `leaf_hash` = SHA-256(0x00 ‖ bytes). An entry commits to its record by digest only, and names
 * the leaf hash of the entry before it (a hash chain beside the tree).
 * Attacker assumption: the text comes from a pack or a peer; parse defensively, never throw.
 */
import { isRecord, ownValue } from '../decide/guards.ts';

export const AUDIT_ENTRY_SCHEMA = 'ns.audit_entry.v1';

export interface AuditEntryJson {
  schema_version: typeof AUDIT_ENTRY_SCHEMA;
  audit_id: string;
  index: number;
  occurred_at: string;
  /** the event type or operation, e.g. `ns.purchase_authority.allowed` */
  kind: string;
  /** the id of what changed; for entities and card tokens a salted commitment, never the id */
  subject_ref: string;
  /** `sha-256:` + base64url of SHA-256 over the RFC 8785 bytes of the record */
  record_digest: string;
  /** standard base64 leaf hash of entry `index - 1`; empty for entry 0 */
  prev_leaf_hash: string;
}

const STRING_MEMBERS = ['audit_id', 'occurred_at', 'kind', 'subject_ref', 'record_digest', 'prev_leaf_hash'] as const;

/** The entry the text encodes, or undefined when it is not an `ns.audit_entry.v1` object. */
export function parseAuditEntryText(text: unknown): AuditEntryJson | undefined {
  if (typeof text !== 'string' || text.length > 65_536) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || ownValue(value, 'schema_version') !== AUDIT_ENTRY_SCHEMA) return undefined;
  const index = ownValue(value, 'index');
  if (!Number.isSafeInteger(index) || (index as number) < 0) return undefined;
  for (const name of STRING_MEMBERS) {
    if (typeof ownValue(value, name) !== 'string') return undefined;
  }
  return value as unknown as AuditEntryJson;
}
