/**
 * The chain walk of `GET /v1/audit/verify` over entries [start.index, end): from a compact range and the leaf hash
 * of the entry before `start.index`, for every index in order: the entry exists; SHA-256(0x00 ‖ bytes) equals its
 * stored leaf hash and its stored level-0 node; the bytes are an `ns.audit_entry.v1` with this index and audit id;
 * `prev_leaf_hash` is the hash of the entry before; every node the leaf completes equals the stored node; a stored
 * checkpoint of the size this leaf makes has the recomputed root and restates its document; the latest checkpoint
 * has the recomputed root at its size. It stops at the first failure and says where (`position`).
 * It does not look at records: it returns, per entry, whether the entry needs an event and a decision row
 * (`classes`), which the caller checks against what the record checks found.
 * Pure over the database handle it is given, so a worker thread can walk another range of the same log
 * (walk-worker.ts): a range started from the stored frontier at its start is checked against the other range's
 * walk, which verifies every node of that frontier and the leaf before it.
 */
import type { Kysely } from 'kysely';
import { AUDIT_ENTRY_SCHEMA } from '../audit-entry.ts';
import { DECISION_KINDS } from '../record-checks/decision-kinds.ts';
import type { Database } from '../../store/index.ts';
import { leafHashOf, type NodeRange } from './node-range.ts';
import { readPageNodes } from './page-nodes.ts';

/** `classes[i]` bits: the entry needs an event (an `ns.` kind), a decision row (a decision kind) */
export const NEEDS_EVENT = 1;
export const NEEDS_DECISION = 2;

export type ChainFailure =
  | 'entry_missing'
  | 'leaf_hash_mismatch'
  | 'malformed_entry'
  | 'index_mismatch'
  | 'prev_link_broken'
  | 'node_mismatch'
  | 'checkpoint_root_mismatch';

export interface WalkFailure {
  /** the entry being checked when the failure was found */
  position: number;
  failure: ChainFailure;
  /** the index the answer names (a node: the first leaf of its range); absent for a checkpoint */
  index?: number;
  record?: { table: string; id: string };
  detail?: string;
}

export interface WalkStart {
  index: number;
  range: NodeRange;
  prevLeafHash: string;
}

export interface WalkResult {
  failure?: WalkFailure;
  /** one per entry of [start.index, end), filled up to the failure */
  classes: Uint8Array;
  /** after the last entry walked (valid only without a failure) */
  range: NodeRange;
  lastLeafHash: string;
}

export interface WalkOptions {
  pageSize: number;
  /** the latest signed checkpoint, whose root is checked at its size */
  latest: { size: number; root_hash: string } | null;
  onPage?: (checked: number) => void;
}

class Stop extends Error {
  constructor(readonly found: WalkFailure) {
    super(found.failure);
  }
}

export async function walkRange(
  db: Kysely<Database>,
  start: WalkStart,
  end: number,
  options: WalkOptions,
): Promise<WalkResult> {
  const { range } = start;
  const classes = new Uint8Array(Math.max(0, end - start.index));
  let prevLeafHash = start.prevLeafHash;
  let index = start.index;
  const stop = (failure: ChainFailure, at: number | undefined, extra: Partial<WalkFailure> = {}): never => {
    throw new Stop({ position: index, failure, ...(at === undefined ? {} : { index: at }), ...extra });
  };
  try {
    while (index < end) {
      const rows = await db
        .selectFrom('audit_entries')
        .select(['idx', 'audit_id', 'entry', 'leaf_hash', 'kind', 'subject_ref', 'occurred_at'])
        .where('idx', '>=', index)
        .where('idx', '<', end)
        .orderBy('idx')
        .limit(options.pageSize)
        .execute();
      if (rows.length === 0) stop('entry_missing', index);
      const pageEnd = Math.min(Number(rows[rows.length - 1]!.idx) + 1, end);
      const stored = await readPageNodes(db, index, pageEnd);
      const checkpoints = await readCheckpointsIn(db, index, pageEnd);
      for (const row of rows) {
        if (Number(row.idx) !== index) stop('entry_missing', index);
        const leaf = leafHashOf(row.entry);
        const leafB64 = leaf.toString('base64');
        if (leafB64 !== row.leaf_hash) stop('leaf_hash_mismatch', index);
        const entry = parseEntry(row.entry);
        if (!entry || entry.audit_id !== row.audit_id) stop('malformed_entry', index);
        if (entry!.index !== index) stop('index_mismatch', index);
        if (entry!.prev_leaf_hash !== prevLeafHash) stop('prev_link_broken', index);
        // the columns entries are looked up by (a state's entries by subject and kind: services/authorize/chained-*.ts)
        // must restate the covered text: an entry moved to another subject would hide a revocation or an outcome
        for (const column of ['kind', 'subject_ref', 'occurred_at'] as const) {
          if (row[column] !== entry![column]) {
            stop('malformed_entry', index, { record: { table: 'audit_entries', id: String(index) }, detail: column });
          }
        }
        range.append(leaf, (level, at, hash) => {
          const node = level === 0 ? leafB64 : hash.toString('base64');
          if (!stored.has(level, at, node)) stop(level === 0 ? 'leaf_hash_mismatch' : 'node_mismatch', at * 2 ** level);
        });
        const signed = checkpoints.get(index + 1);
        if (signed !== undefined) {
          const differs = checkpointDiffers(signed, range.root().toString('base64'));
          if (differs) {
            stop('checkpoint_root_mismatch', undefined, {
              record: { table: 'audit_checkpoints', id: String(index + 1) },
              detail: differs,
            });
          }
        }
        const latest = options.latest;
        if (latest && index + 1 === latest.size && range.root().toString('base64') !== latest.root_hash) {
          stop('checkpoint_root_mismatch', undefined);
        }
        const kind = entry!.kind;
        classes[index - start.index] =
          (kind.startsWith('ns.') ? NEEDS_EVENT : 0) | (DECISION_KINDS.has(kind) ? NEEDS_DECISION : 0);
        prevLeafHash = leafB64;
        index += 1;
      }
      options.onPage?.(index);
    }
  } catch (error) {
    if (error instanceof Stop) return { failure: error.found, classes, range, lastLeafHash: prevLeafHash };
    throw error;
  }
  return { classes, range, lastLeafHash: prevLeafHash };
}

interface ParsedEntry {
  audit_id: unknown;
  index: unknown;
  kind: string;
  subject_ref: unknown;
  occurred_at: unknown;
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
  db: Kysely<Database>,
  begin: number,
  end: number,
): Promise<Map<number, { root_hash: string; timestamp: string; document: string }>> {
  const rows = await db
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
