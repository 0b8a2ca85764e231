/**
 * What the memory API answers for a record: its signed record form, its content while kept (with the salt that
 * binds it to `content_digest`), its tombstone once ended, and on a single read the verification made then.
 */
import type { Selectable } from 'kysely';
import type { MemoryRecordsTable, MemoryRecordState } from '../../store/schema-memory.ts';
import type { MemoryRecordDocument, MemoryTombstoneDocument } from './memory-documents.ts';

export interface MemoryVerification {
  /** every check below passed */
  valid: boolean;
  /** the record's service signature against the JWKS (GET /.well-known/jwks.json) */
  record_signature: 'valid' | 'invalid';
  /** the stored columns (principal, agent, grant, classification, retention) agree with the signed record */
  record_matches_row: boolean;
  /** `intact`: the stored content hashes to `content_digest`; `tampered`: it does not (it is then withheld) */
  content: 'intact' | 'tampered' | 'purged';
  /** the tombstone's signature, once the record has ended */
  tombstone_signature: 'valid' | 'invalid' | null;
  /** the key that signed the record */
  key_id: string | null;
}

export interface MemoryRecordView {
  memory_record_id: string;
  state: MemoryRecordState;
  record: MemoryRecordDocument;
  /** the content as written, while kept; null once erased or purged (or when it fails verification) */
  content: unknown;
  /** base64url salt digested with the content into `record.content_digest`; null with the content */
  content_salt: string | null;
  tombstone: MemoryTombstoneDocument | null;
  verification?: MemoryVerification;
}

export function memoryRecordView(
  row: Selectable<MemoryRecordsTable>,
  content: { content: string; salt: string } | null,
  tombstone: string | null,
): MemoryRecordView {
  return {
    memory_record_id: row.memory_record_id,
    state: row.state,
    record: JSON.parse(row.record) as MemoryRecordDocument,
    content: content ? (JSON.parse(content.content) as unknown) : null,
    content_salt: content?.salt ?? null,
    tombstone: tombstone ? (JSON.parse(tombstone) as MemoryTombstoneDocument) : null,
  };
}
