/**
 * `GET /v1/audit/verify`: recomputes the hash chain and the Merkle tree from the stored entry bytes, streaming in
 * pages so a log of millions of entries needs O(page + log n) memory. It checks, in order, for every index:
 * the entry exists; SHA-256(0x00 ‖ bytes) equals its stored leaf hash and its stored level-0 node; the bytes are an
 * `ns.audit_entry.v1` with this index and audit id; `prev_leaf_hash` equals the recomputed hash of the entry before;
 * every tree node completed by this leaf equals the stored node; at the latest checkpoint's size, the recomputed
 * root equals the checkpoint's. Then the tip (size, last leaf hash, frontier root) and the checkpoint's signature
 * and origin.
 * `first_invalid_index` is the first index whose bytes disagree with a stored commitment to them (for a stored
 * interior node that disagrees: the first leaf of its range). A forgery that rewrites every commitment (entry,
 * hashes, nodes, tip) is still caught by the signed checkpoint's root, without an index.
 * Then the records (record-checks/verify-records.ts): every decision, event, approval, revocation and evidence pack
 * against the digest its entry commits to, and every `ns.` entry must still have its record. Every stored checkpoint
 * (not only the latest) must have the recomputed root at its size and restate its signed document.
 * The first failing index wins, whichever check found it; a failure names the record (`record: { table, id }`) and
 * what differs (`detail`) when a stored record or checkpoint is at fault.
 * Concurrent appends are harmless: entries below the tip read first never change (write-once), and records whose
 * entries are beyond that tip are left for the next verification.
 */
import { CompactRange, encodeBase64, verifyDocument } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { AUDIT_ENTRY_SCHEMA } from './audit-entry.ts';
import { auditOrigin } from './audit-origin.ts';
import { latestCheckpoint, type SignedCheckpoint } from './checkpoints.ts';
import { DECISION_KINDS } from './record-checks/decision-kinds.ts';
import type { RecordFailure, RecordFailureReason } from './record-checks/record-findings.ts';
import { FULL_SCOPE } from './record-checks/record-findings.ts';
import { verifyRecords } from './record-checks/verify-records.ts';
import { resumeFromLatestMark, storeMark, type VerificationMark } from './verify/verification-marks.ts';
import { leafHashOf, NodeRange } from './verify/node-range.ts';
import { readPageNodes } from './verify/page-nodes.ts';

export type AuditVerifyFailure =
  | 'entry_missing'
  | 'leaf_hash_mismatch'
  | 'malformed_entry'
  | 'index_mismatch'
  | 'prev_link_broken'
  | 'node_mismatch'
  | 'checkpoint_root_mismatch'
  | 'checkpoint_beyond_tip'
  | 'checkpoint_signature_invalid'
  | 'checkpoint_origin_mismatch'
  | 'tip_mismatch'
  | 'verification_mark_invalid'
  | RecordFailureReason;

export interface AuditVerification {
  valid: boolean;
  /** entries in the log (the tip read when verification started) */
  size: number;
  /** the log's root at `size` as its tip states it (standard base64); equal to the recomputed root when valid */
  root_hash: string;
  /** entries verified before the first failure (all of them when valid) */
  checked: number;
  first_invalid_index?: number;
  failure?: AuditVerifyFailure;
  /** the stored record (or checkpoint) at fault, when one is */
  record?: { table: string; id: string };
  /** which member or column of it differs */
  detail?: string;
  /** the latest signed checkpoint, or null when none was made yet */
  checkpoint: SignedCheckpoint | null;
  /** the first entry this run walked: 0, or the size of the verification mark it resumed from (`from=verified`) */
  from: number;
  /** when valid: the signed mark of this result (stored, or the one already stored for this size) */
  mark: VerificationMark | null;
}

export interface VerifyAuditLogOptions {
  /** entries per SELECT; memory is O(page) */
  pageSize?: number;
  /** called after each page with the entries checked so far (progress, memory sampling) */
  onPage?: (checked: number) => void;
  /** `start` (default): the whole log; `verified`: from the latest verification mark (its absence: the whole log) */
  from?: 'start' | 'verified';
  /** store a signed mark when the log is valid (default true) */
  storeMark?: boolean;
}

class Invalid extends Error {
  constructor(
    readonly failure: AuditVerifyFailure,
    readonly index?: number,
    readonly at?: Pick<RecordFailure, 'record' | 'detail'>,
  ) {
    super(failure);
  }
}

const recordInvalid = (f: RecordFailure): Invalid =>
  new Invalid(f.reason, f.index, { record: f.record, detail: f.detail });

export async function verifyAuditLog(ctx: AppContext, options: VerifyAuditLogOptions = {}): Promise<AuditVerification> {
  const db = ctx.store.db;
  const pageSize = options.pageSize ?? 10_000;
  // Checkpoint first, tip second: the tip read is then at least as large as the checkpoint.
  const checkpoint = (await latestCheckpoint(db)) ?? null;
  const tip = await db.selectFrom('audit_state').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  const size = Number(tip.size);
  const claimedRoot = encodeBase64(CompactRange.fromJSON(JSON.parse(tip.frontier)).root());
  let from = 0;
  let range = NodeRange.empty();
  let prevLeafHash = '';
  let scope = FULL_SCOPE;
  let checked = 0;
  const answer = (extra: Partial<AuditVerification> = {}): AuditVerification => ({
    valid: extra.failure === undefined,
    size,
    root_hash: claimedRoot,
    checked,
    ...extra,
    checkpoint,
    from,
    mark: extra.mark ?? null,
  });
  if (options.from === 'verified') {
    const resumed = await resumeFromLatestMark(ctx, size);
    if (!resumed.ok) {
      return answer({
        failure: 'verification_mark_invalid',
        record: { table: 'audit_verifications', id: String(resumed.size) },
        detail: resumed.detail,
      });
    }
    if (resumed.point) {
      const { mark } = resumed.point;
      from = checked = mark.size;
      range = resumed.point.range;
      prevLeafHash = mark.last_leaf_hash;
      scope = { from, after: mark.record_seqs };
    }
  }
  const records = await verifyRecords(db, size, await ctx.keys.jwks(), scope);
  const recordFailure = records.first;

  try {
    while (checked < size) {
      const rows = await db
        .selectFrom('audit_entries')
        .select(['idx', 'audit_id', 'entry', 'leaf_hash'])
        .where('idx', '>=', checked)
        .where('idx', '<', size)
        .orderBy('idx')
        .limit(pageSize)
        .execute();
      if (rows.length === 0) throw new Invalid('entry_missing', checked);
      const end = Math.min(Number(rows[rows.length - 1]!.idx) + 1, size);
      const stored = await readPageNodes(db, checked, end);
      const checkpoints = await readCheckpointsIn(ctx, checked, end);
      for (const row of rows) {
        const index = checked;
        if (Number(row.idx) !== index) throw new Invalid('entry_missing', index);
        const leaf = leafHashOf(row.entry);
        const leafB64 = leaf.toString('base64');
        if (leafB64 !== row.leaf_hash) throw new Invalid('leaf_hash_mismatch', index);
        const entry = parseEntry(row.entry);
        if (!entry || entry.audit_id !== row.audit_id) throw new Invalid('malformed_entry', index);
        if (entry.index !== index) throw new Invalid('index_mismatch', index);
        if (entry.prev_leaf_hash !== prevLeafHash) throw new Invalid('prev_link_broken', index);
        range.append(leaf, (level, at, hash) => {
          const node = level === 0 ? leafB64 : hash.toString('base64');
          if (!stored.has(level, at, node)) {
            throw new Invalid(level === 0 ? 'leaf_hash_mismatch' : 'node_mismatch', at * 2 ** level);
          }
        });
        const signed = checkpoints.get(index + 1);
        if (signed !== undefined) {
          const differs = checkpointDiffers(signed, range.root().toString('base64'));
          if (differs) {
            throw new Invalid('checkpoint_root_mismatch', undefined, {
              record: { table: 'audit_checkpoints', id: String(index + 1) },
              detail: differs,
            });
          }
        }
        if (checkpoint && index + 1 === checkpoint.size && range.root().toString('base64') !== checkpoint.root_hash) {
          throw new Invalid('checkpoint_root_mismatch');
        }
        if (entry.kind.startsWith('ns.') && !records.eventAnchored.has(index)) {
          throw new Invalid('record_missing', index, {
            record: { table: 'events', id: row.audit_id },
            detail: 'event',
          });
        }
        if (DECISION_KINDS.has(entry.kind) && !records.decisionAnchored.has(index)) {
          throw new Invalid('record_missing', index, {
            record: { table: 'decisions', id: row.audit_id },
            detail: 'decision',
          });
        }
        if (recordFailure?.index === index) throw recordInvalid(recordFailure);
        prevLeafHash = leafB64;
        checked += 1;
      }
      options.onPage?.(checked);
    }
  } catch (error) {
    if (error instanceof Invalid) {
      return answer({
        failure: error.failure,
        ...(error.index === undefined ? {} : { first_invalid_index: error.index }),
        ...(error.at ?? {}),
      });
    }
    throw error;
  }

  if (tip.last_leaf_hash !== prevLeafHash || range.root().toString('base64') !== claimedRoot) {
    return answer({ failure: 'tip_mismatch' });
  }
  if (recordFailure) {
    // a record naming no entry of the log (its index, if any, was below the walk and already reported)
    return answer({ failure: recordFailure.reason, record: recordFailure.record, detail: recordFailure.detail });
  }
  if (checkpoint) {
    if (checkpoint.size > size) return answer({ failure: 'checkpoint_beyond_tip' });
    if (checkpoint.origin !== (await auditOrigin(ctx))) return answer({ failure: 'checkpoint_origin_mismatch' });
    if (!(await verifyDocument(checkpoint, await ctx.keys.jwks())).valid) {
      return answer({ failure: 'checkpoint_signature_invalid' });
    }
  }
  if (options.storeMark === false) return answer();
  const mark = await storeMark(ctx, {
    size,
    range,
    lastLeafHash: prevLeafHash,
    checkpointSize: checkpoint?.size ?? null,
    recordSeqs: records.highWater(),
    walkedFrom: from,
  });
  return answer({ mark });
}

interface ParsedEntry {
  audit_id: unknown;
  index: unknown;
  kind: string;
  prev_leaf_hash: unknown;
}

function parseEntry(text: string): ParsedEntry | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown> | null;
    if (typeof value !== 'object' || value === null || value.schema_version !== AUDIT_ENTRY_SCHEMA) return undefined;
    if (typeof value.kind !== 'string') return undefined;
    return value as unknown as ParsedEntry;
  } catch {
    return undefined;
  }
}

/** The stored checkpoints of sizes (begin, end]: one SELECT per page of entries. */
async function readCheckpointsIn(
  ctx: AppContext,
  begin: number,
  end: number,
): Promise<Map<number, { root_hash: string; timestamp: string; document: string }>> {
  const rows = await ctx.store.db
    .selectFrom('audit_checkpoints')
    .select(['size', 'root_hash', 'timestamp', 'document'])
    .where('size', '>', begin)
    .where('size', '<=', end)
    .execute();
  return new Map(rows.map((r) => [Number(r.size), r]));
}

/** What of a stored checkpoint disagrees with the recomputed root or with its own signed document. */
function checkpointDiffers(
  row: { root_hash: string; timestamp: string; document: string },
  root: string,
): string | undefined {
  if (row.root_hash !== root) return 'root_hash';
  try {
    const doc = JSON.parse(row.document) as Record<string, unknown>;
    if (doc.root_hash !== root) return 'document';
    if (doc.timestamp !== row.timestamp) return 'timestamp';
  } catch {
    return 'document';
  }
  return undefined;
}
