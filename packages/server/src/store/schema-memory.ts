/** The tables of memory records (migration 0026), part of `Database` (schema.ts). Conventions as in schema.ts. */
import type { ColumnType, Generated } from 'kysely';

export type MemoryClassification = 'public' | 'internal' | 'confidential' | 'restricted';
export type MemoryRecordState = 'active' | 'erased' | 'purged';
export type MemoryTombstoneReason = 'erased' | 'retention_expired';

/** One signed memory record (services/memory); write-once but for `state` + `tombstone_id`, set once together. */
export interface MemoryRecordsTable {
  seq: Generated<number>;
  /** `ns:memory_record:<uuid>` */
  memory_record_id: string;
  principal_entity_id: string;
  agent_entity_id: string;
  grant_id: string;
  classification: MemoryClassification;
  /** the signed `ns.memory_record.v1` record form, RFC 8785 text (no content: `content_digest` binds it) */
  record: ColumnType<string, string, never>;
  /** base64url SHA-256 of `record` (the text above) */
  record_digest: ColumnType<string, string, never>;
  /** the record's `content_digest` */
  content_digest: ColumnType<string, string, never>;
  retain_until: string;
  created_at: string;
  state: MemoryRecordState;
  /** the tombstone that ended it (`ns:memory_tombstone:<uuid>`); null while active */
  tombstone_id: string | null;
}

/** The content of an active record; deleted by erasure and by the retention purge. */
export interface MemoryContentsTable {
  memory_record_id: string;
  /** RFC 8785 text of the content as written */
  content: string;
  /** base64url of 32 random bytes, digested with the content (so a purged record's digest reveals nothing) */
  salt: string;
}

/** Per principal, the hash chain of tombstones (`sequence` 1, 2, ...); fully write-once. */
export interface MemoryTombstonesTable {
  seq: Generated<number>;
  /** `ns:memory_tombstone:<uuid>` */
  tombstone_id: string;
  memory_record_id: string;
  principal_entity_id: string;
  sequence: number;
  /** `tombstone_digest` of the principal's tombstone at `sequence - 1`; null for the first */
  previous_tombstone_digest: string | null;
  reason: MemoryTombstoneReason;
  /** the signed `ns.memory_record.v1` tombstone form, RFC 8785 text */
  tombstone: string;
  /** base64url SHA-256 of `tombstone` */
  tombstone_digest: string;
  created_at: string;
}

export interface MemoryTables {
  memory_records: MemoryRecordsTable;
  memory_contents: MemoryContentsTable;
  memory_tombstones: MemoryTombstonesTable;
}
