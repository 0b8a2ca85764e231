/** The `data` of `ns.memory.erased` and `ns.memory.purged`: ids, classification and digests, never content. */
import type { Selectable } from 'kysely';
import type { MemoryRecordsTable } from '../../store/schema-memory.ts';
import type { MemoryTombstoneDocument, SignedText } from './memory-documents.ts';

export function tombstoneEventData(
  row: Selectable<MemoryRecordsTable>,
  tombstone: SignedText<MemoryTombstoneDocument>,
): Record<string, unknown> {
  const t = tombstone.document;
  return {
    memory_record_id: row.memory_record_id,
    tombstone_id: t.tombstone_id,
    agent_entity_id: row.agent_entity_id,
    classification: row.classification,
    record_digest: row.record_digest,
    tombstone_digest: tombstone.digest,
    sequence: t.sequence,
    previous_tombstone_digest: t.previous_tombstone_digest,
  };
}
