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
 * How (issue 10): the walk is verify/walk-range.ts, on two threads for large logs on SQLite (verify/parallel-walk.ts);
 * a valid run stores a signed verification mark, and `from: 'verified'` resumes from the latest one
 * (verify/verification-marks.ts), checking the entries and records appended since.
 */
import { CompactRange, encodeBase64, verifyDocument } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { auditOrigin } from './audit-origin.ts';
import { latestCheckpoint, type SignedCheckpoint } from './checkpoints.ts';
import { checkDecisions } from './record-checks/check-decisions.ts';
import {
  FULL_SCOPE,
  RecordFindings,
  type RecordFailure,
  type RecordFailureReason,
} from './record-checks/record-findings.ts';
import { verifyRecords } from './record-checks/verify-records.ts';
import { NodeRange } from './verify/node-range.ts';
import { parallelPlan, runInWorker, type WorkerAnswer } from './verify/parallel-walk.ts';
import { resumeFromLatestMark, storeMark, type VerificationMark } from './verify/verification-marks.ts';
import {
  NEEDS_DECISION,
  NEEDS_EVENT,
  walkRange,
  type ChainFailure,
  type WalkResult,
  type WalkStart,
} from './verify/walk-range.ts';

export type AuditVerifyFailure =
  | ChainFailure
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
  /** share the work with a worker thread from this many entries on (SQLite file only); default: when it pays */
  parallelMinEntries?: number;
}

export async function verifyAuditLog(ctx: AppContext, options: VerifyAuditLogOptions = {}): Promise<AuditVerification> {
  const db = ctx.store.db;
  const pageSize = options.pageSize ?? 10_000;
  // Checkpoint first, tip second: the tip read is then at least as large as the checkpoint.
  const checkpoint = (await latestCheckpoint(db)) ?? null;
  const tip = await db.selectFrom('audit_state').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  const size = Number(tip.size);
  const claimedRoot = encodeBase64(CompactRange.fromJSON(JSON.parse(tip.frontier)).root());
  let start: WalkStart = { index: 0, range: NodeRange.empty(), prevLeafHash: '' };
  let scope = FULL_SCOPE;
  let checked = 0;
  const answer = (extra: Partial<AuditVerification> = {}): AuditVerification => ({
    valid: extra.failure === undefined,
    size,
    root_hash: claimedRoot,
    checked,
    ...extra,
    checkpoint,
    from: start.index,
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
      start = { index: mark.size, range: resumed.point.range, prevLeafHash: mark.last_leaf_hash };
      scope = { from: mark.size, after: mark.record_seqs };
    }
  }
  checked = start.index;
  const walkOptions = { pageSize, latest: checkpoint, ...(options.onPage ? { onPage: options.onPage } : {}) };

  // the upper halves of the chain and of the decision rows on a worker thread when it pays (parallel-walk.ts)
  const plan = await parallelPlan(ctx, start, size, scope, options.parallelMinEntries);
  const worker = plan
    ? runInWorker({
        file: ctx.store.location,
        pageSize,
        ...(plan.chain
          ? {
              chain: {
                start: plan.chain.index,
                end: size,
                frontier: plan.chain.range.toJSON(),
                prevLeafHash: plan.chain.prevLeafHash,
                latest: checkpoint,
              },
            }
          : {}),
        ...(plan.decisionsThrough === undefined ? {} : { decisions: { size, scope, after: plan.decisionsThrough } }),
      })
    : undefined;
  const jwks = await ctx.keys.jwks();
  const records = await verifyRecords(db, size, jwks, scope, { decisionsThrough: plan?.decisionsThrough });
  const mid = plan?.chain;
  const first = await walkRange(db, start, mid ? mid.index : size, walkOptions);
  const walks: Array<{ from: number; result: WalkResult }> = [{ from: start.index, result: first }];
  if (worker) {
    // the decision rows it checked may name an index below the lower walk's failure: its answer is always needed,
    // but for its walk alone when the lower walk failed already
    if (first.failure && plan?.decisionsThrough === undefined) worker.stop();
    else {
      const answer = await worker.answer.catch(async (): Promise<WorkerAnswer> => {
        // the worker's part on this thread instead: the same checks, slower
        const out: WorkerAnswer = {};
        if (plan?.decisionsThrough !== undefined) {
          const findings = new RecordFindings(size, scope);
          await checkDecisions(db, findings, 2000, { after: plan.decisionsThrough });
          out.decisions = findings.decisionFindings();
        }
        if (mid && !first.failure) out.chain = await walkRange(db, mid, size, walkOptions);
        return out;
      });
      if (answer.decisions) records.addDecisions(answer.decisions);
      if (mid && !first.failure && answer.chain) walks.push({ from: mid.index, result: answer.chain });
    }
  }

  const found = await firstFailure(db, walks, records);
  if (found) {
    checked = found.position;
    return answer({
      failure: found.failure,
      ...(found.index === undefined ? {} : { first_invalid_index: found.index }),
      ...(found.record ? { record: found.record } : {}),
      ...(found.detail ? { detail: found.detail } : {}),
    });
  }
  const last = walks[walks.length - 1]!.result;
  checked = size;
  const recordFailure = records.first;
  if (tip.last_leaf_hash !== last.lastLeafHash || last.range.root().toString('base64') !== claimedRoot) {
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
    range: last.range,
    lastLeafHash: last.lastLeafHash,
    checkpointSize: checkpoint?.size ?? null,
    recordSeqs: records.highWater(),
    walkedFrom: start.index,
  });
  return answer({ mark });
}

interface FoundFailure {
  /** the entry the walk was at */
  position: number;
  failure: AuditVerifyFailure;
  index?: number;
  record?: RecordFailure['record'];
  detail?: string;
}

/**
 * The first failure in index order, as one walk over the whole log would meet it: per entry, the chain checks
 * (the walks stop at their first), then its decision and event rows (`classes` against what the record checks
 * found), then a record committing at it that failed.
 */
async function firstFailure(
  db: AppContext['store']['db'],
  walks: ReadonlyArray<{ from: number; result: WalkResult }>,
  records: RecordFindings,
): Promise<FoundFailure | undefined> {
  const recordAt = records.first?.index;
  for (const { from, result } of walks) {
    const stop = result.failure?.position ?? from + result.classes.length;
    for (let index = from; index < stop; index++) {
      const needs = result.classes[index - from]!;
      // the decision first: a decision's event may be derived from its row, and is then missing with it
      const missing =
        needs & NEEDS_DECISION && !records.decisionAnchored.has(index)
          ? { table: 'decisions', detail: 'decision' }
          : needs & NEEDS_EVENT && !records.eventAnchored.has(index)
            ? { table: 'events', detail: 'event' }
            : undefined;
      if (missing) {
        const row = await db.selectFrom('audit_entries').select('audit_id').where('idx', '=', index).executeTakeFirst();
        return {
          position: index,
          failure: 'record_missing',
          index,
          record: { table: missing.table, id: row?.audit_id ?? '' },
          detail: missing.detail,
        };
      }
      if (recordAt === index) {
        const { reason, record, detail } = records.first!;
        return { position: index, failure: reason, index, record, detail };
      }
    }
    if (result.failure) return result.failure;
  }
  return undefined;
}
