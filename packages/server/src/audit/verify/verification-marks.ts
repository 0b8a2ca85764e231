/**
 * Verification marks (`ns.audit_verification.v1`, table `audit_verifications`, migration 0010): "the log was found
 * valid through size N, root R, last leaf L, records through these `seq`s", signed with the service key when a
 * `GET /v1/audit/verify` finds the log valid. `?from=verified` resumes from the latest mark: the walk starts at N
 * with the mark's frontier (the compact range of the first N leaves, whose root is R), so its cost is that of the
 * entries and records added since.
 * Attacker assumption: someone with the database but not the key. A mark is used only if its signature verifies
 * with one of our keys (never a key the mark names) and it restates itself (row = document, frontier root = R); the
 * stored log must still end its first N entries with L, and its stored nodes must still hold the frontier, so a
 * log cut back or re-rooted below the mark is refused. Edits of rows below N that keep those are what an
 * incremental run does not look at: a full run (the default) still checks everything.
 */
import { signDocument, verifyDocument, type DocumentSignature } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { auditOrigin } from '../audit-origin.ts';
import { SEQ_TABLES, type RecordSeqs } from '../record-checks/record-findings.ts';
import { readStoredNodes } from '../stored-node-reader.ts';
import { NodeRange } from './node-range.ts';

export const VERIFICATION_SCHEMA = 'ns.audit_verification.v1';

export interface UnsignedVerificationMark {
  schema_version: typeof VERIFICATION_SCHEMA;
  origin: string;
  /** entries verified: [0, size) */
  size: number;
  /** MTH of those entries, standard base64 */
  root_hash: string;
  /** leaf hash of entry size - 1 (empty for an empty log) */
  last_leaf_hash: string;
  /** the compact range of the first `size` leaves (core's CompactRange JSON) */
  frontier: { size: number; hashes: string[] };
  /** the latest signed checkpoint the run checked, or null */
  checkpoint_size: number | null;
  /** per record table, the `seq` through which its rows were checked */
  record_seqs: RecordSeqs;
  /** the first entry the run that made this mark walked (0: a full run) */
  walked_from: number;
  verified_at: string;
}

export type VerificationMark = UnsignedVerificationMark & { signature: DocumentSignature };

/** Where an incremental run starts. */
export interface ResumePoint {
  mark: VerificationMark;
  range: NodeRange;
}

export type Resumed = { ok: true; point: ResumePoint | undefined } | { ok: false; size: number; detail: string };

/** The latest mark, checked; `point` undefined when no mark was made yet (the run then walks the whole log). */
export async function resumeFromLatestMark(ctx: AppContext, tipSize: number): Promise<Resumed> {
  const db = ctx.store.db;
  const row = await db
    .selectFrom('audit_verifications')
    .selectAll()
    .orderBy('size', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return { ok: true, point: undefined };
  const size = Number(row.size);
  const refuse = (detail: string): Resumed => ({ ok: false, size, detail });
  let mark: VerificationMark;
  try {
    mark = JSON.parse(row.document) as VerificationMark;
  } catch {
    return refuse('document');
  }
  if (typeof mark !== 'object' || mark === null || mark.schema_version !== VERIFICATION_SCHEMA) {
    return refuse('document');
  }
  if (mark.size !== size || mark.root_hash !== row.root_hash) return refuse('document');
  if (!(await verifyDocument(mark, await ctx.keys.jwks())).valid) return refuse('signature');
  if (mark.origin !== (await auditOrigin(ctx))) return refuse('origin');
  let range: NodeRange;
  try {
    range = NodeRange.fromJSON(mark.frontier);
  } catch {
    return refuse('frontier');
  }
  if (range.size !== size || range.root().toString('base64') !== mark.root_hash) return refuse('frontier');
  const seqs = mark.record_seqs as Partial<RecordSeqs> | undefined;
  if (!SEQ_TABLES.every((t) => Number.isSafeInteger(seqs?.[t]))) return refuse('record_seqs');
  if (size > tipSize) return refuse(`beyond the tip (${tipSize})`);
  if (size > 0) {
    const last = await db
      .selectFrom('audit_entries')
      .select('leaf_hash')
      .where('idx', '=', size - 1)
      .executeTakeFirst();
    if (last?.leaf_hash !== mark.last_leaf_hash) return refuse(`entry ${size - 1} is not the mark's last leaf`);
    const subtrees = frontierRanges(size);
    try {
      const stored = await readStoredNodes(db, subtrees, tipSize);
      const hashes = range.toJSON().hashes;
      for (const [i, r] of subtrees.entries()) {
        if (Buffer.from(stored.perfectSubtreeHash(r.begin, r.end)).toString('base64') !== hashes[i]) {
          return refuse(`the stored node of [${r.begin}, ${r.end}) differs from the mark's frontier`);
        }
      }
    } catch {
      return refuse("a node of the mark's frontier is not stored");
    }
  }
  return { ok: true, point: { mark, range } };
}

/** The perfect subtrees of a compact range of `size` leaves, largest (leftmost) first. */
function frontierRanges(size: number): Array<{ begin: number; end: number }> {
  const out: Array<{ begin: number; end: number }> = [];
  let begin = 0;
  for (let width = 2 ** Math.floor(Math.log2(size)); width >= 1; width /= 2) {
    if (size - begin >= width) {
      out.push({ begin, end: begin + width });
      begin += width;
    }
  }
  return out;
}

export interface VerifiedLog {
  size: number;
  range: NodeRange;
  lastLeafHash: string;
  checkpointSize: number | null;
  recordSeqs: RecordSeqs;
  walkedFrom: number;
}

/**
 * Signs and stores the mark of a valid run, unless one of that size exists (then that one is answered): marks are
 * write-once, one per size.
 */
export async function storeMark(ctx: AppContext, log: VerifiedLog): Promise<VerificationMark> {
  const unsigned: UnsignedVerificationMark = {
    schema_version: VERIFICATION_SCHEMA,
    origin: await auditOrigin(ctx),
    size: log.size,
    root_hash: log.range.root().toString('base64'),
    last_leaf_hash: log.lastLeafHash,
    frontier: log.range.toJSON(),
    checkpoint_size: log.checkpointSize,
    record_seqs: log.recordSeqs,
    walked_from: log.walkedFrom,
    verified_at: ctx.clock.now().toISOString(),
  };
  const signed = (await signDocument(unsigned, ctx.keys.current())) as VerificationMark;
  return ctx.writer.run(async (trx) => {
    const existing = await trx
      .selectFrom('audit_verifications')
      .select('document')
      .where('size', '=', log.size)
      .executeTakeFirst();
    // the SQLite guard refuses any insert of an existing key, so look first (one writer: no race on SQLite)
    if (existing) return JSON.parse(existing.document) as VerificationMark;
    await trx
      .insertInto('audit_verifications')
      .values({
        size: log.size,
        root_hash: unsigned.root_hash,
        document: JSON.stringify(signed),
        created_at: unsigned.verified_at,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
    return signed;
  });
}
