/**
 * The per-principal chain of memory tombstones. Each tombstone names the digest of the principal's previous one
 * (`previous_tombstone_digest`, null for `sequence` 1), so removing, reordering or replacing one breaks every link
 * after it. INVARIANT: a principal's chain is appended only inside a write-queue unit, reading its tip there; the
 * (principal, sequence) unique key makes a second writer that read the same tip fail instead of forking the chain.
 */
import { canonicalJson, verifyDocument, type TrustedKeys } from '@aar/core';
import type { Selectable, Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import type { MemoryRecordsTable, MemoryTombstoneReason } from '../../store/schema-memory.ts';
import { mintMemoryId } from './memory-ids.ts';
import { textDigest } from './memory-content.ts';
import {
  MEMORY_SCHEMA_VERSION,
  signMemoryDocument,
  type MemoryTombstoneDocument,
  type SignedText,
  type UnsignedMemoryTombstone,
} from './memory-documents.ts';

/** Writes the tombstone ending `record` at the tip of its principal's chain, and moves the record's state. */
export async function appendTombstone(
  trx: Transaction<Database>,
  ctx: AppContext,
  record: Selectable<MemoryRecordsTable>,
  reason: MemoryTombstoneReason,
): Promise<SignedText<MemoryTombstoneDocument>> {
  const tip = await trx
    .selectFrom('memory_tombstones')
    .select(['sequence', 'tombstone_digest'])
    .where('principal_entity_id', '=', record.principal_entity_id)
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
  const now = ctx.clock.now().toISOString();
  const unsigned: UnsignedMemoryTombstone = {
    schema_version: MEMORY_SCHEMA_VERSION,
    form: 'tombstone',
    tombstone_id: mintMemoryId('memory_tombstone', ctx.newUuid()),
    memory_record_id: record.memory_record_id,
    issuer: ctx.config.issuerUrl,
    principal_entity_id: record.principal_entity_id,
    agent_entity_id: record.agent_entity_id,
    classification: record.classification,
    record_digest: record.record_digest,
    reason,
    sequence: (tip ? Number(tip.sequence) : 0) + 1,
    previous_tombstone_digest: tip?.tombstone_digest ?? null,
    record_created_at: record.created_at,
    created_at: now,
  };
  const signed = await signMemoryDocument(ctx, unsigned);
  const t = signed.document;
  await trx
    .insertInto('memory_tombstones')
    .values({
      tombstone_id: t.tombstone_id,
      memory_record_id: t.memory_record_id,
      principal_entity_id: t.principal_entity_id,
      sequence: t.sequence,
      previous_tombstone_digest: t.previous_tombstone_digest,
      reason,
      tombstone: signed.text,
      tombstone_digest: signed.digest,
      created_at: now,
    })
    .execute();
  await trx.deleteFrom('memory_contents').where('memory_record_id', '=', record.memory_record_id).execute();
  await trx
    .updateTable('memory_records')
    .set({ state: reason === 'erased' ? 'erased' : 'purged', tombstone_id: t.tombstone_id })
    .where('memory_record_id', '=', record.memory_record_id)
    .where('state', '=', 'active')
    .execute();
  return signed;
}

export interface ChainFinding {
  sequence: number;
  tombstone_id: string | undefined;
  problem: 'signature_invalid' | 'sequence_gap' | 'previous_digest_mismatch' | 'other_principal' | 'malformed';
}

export interface ChainVerification {
  valid: boolean;
  length: number;
  /** digest of the last tombstone (what a later check can pin the chain to); null for an empty chain */
  tip_digest: string | null;
  findings: ChainFinding[];
}

/**
 * Verifies one principal's chain given in sequence order: each signature against `trusted`, sequences 1..n without
 * gap, each `previous_tombstone_digest` equal to the digest (SHA-256 of RFC 8785 text) of the one before. Pure.
 * The same algorithm the SDKs implement (docs/memory.md "Verifying the tombstone chain").
 */
export async function verifyTombstoneChain(
  principalEntityId: string,
  tombstones: readonly unknown[],
  trusted: TrustedKeys,
): Promise<ChainVerification> {
  const findings: ChainFinding[] = [];
  let previous: string | null = null;
  let index = 0;
  for (const raw of tombstones) {
    index += 1;
    const t = raw as Partial<MemoryTombstoneDocument>;
    const id = typeof t.tombstone_id === 'string' ? t.tombstone_id : undefined;
    if (typeof t !== 'object' || t === null || t.form !== 'tombstone' || typeof t.sequence !== 'number') {
      findings.push({ sequence: index, tombstone_id: id, problem: 'malformed' });
      previous = null;
      continue;
    }
    if (!(await verifyDocument(t, trusted)).valid) {
      findings.push({ sequence: index, tombstone_id: id, problem: 'signature_invalid' });
    }
    if (t.principal_entity_id !== principalEntityId) {
      findings.push({ sequence: index, tombstone_id: id, problem: 'other_principal' });
    }
    if (t.sequence !== index) findings.push({ sequence: index, tombstone_id: id, problem: 'sequence_gap' });
    if ((t.previous_tombstone_digest ?? null) !== previous) {
      findings.push({ sequence: index, tombstone_id: id, problem: 'previous_digest_mismatch' });
    }
    previous = tombstoneDigest(t);
  }
  return { valid: findings.length === 0, length: tombstones.length, tip_digest: previous, findings };
}

/** base64url SHA-256 of the RFC 8785 text of a signed tombstone (signature included) */
export function tombstoneDigest(tombstone: object): string {
  return textDigest(canonicalJson(tombstone));
}
