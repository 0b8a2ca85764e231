/**
 * Appends audit entries inside a write batch (store/write-queue.ts). The tip (size, last leaf hash, compact-range
 * frontier) is read at the start of every batch — under `FOR UPDATE` on PostgreSQL, so batches of all instances
 * append in one order — and written back at its end, in the same transaction as the entries and the state changes
 * they record. A unit of work that fails rolls its entries back with its savepoint, and the appender's in-memory
 * tip with `restore()`.
 * INVARIANT: entry i's prev_leaf_hash is entry i-1's leaf hash; audit_nodes holds every perfect subtree hash.
 */
import { AarError, CompactRange, encodeBase64, mintedId } from '@aar/core';
import type { Transaction } from 'kysely';
import type { Database } from '../store/index.ts';
import { AUDIT_ENTRY_SCHEMA, encodeEntry, recordDigest, type AuditEntry } from './audit-entry.ts';
import {
  INSERT_ENTRIES,
  INSERT_NODES,
  PREPARED_ROWS,
  READ_TIP,
  READ_TIP_FOR_UPDATE,
  WRITE_TIP,
  type EntryRow,
  type NodeRow,
} from './audit-statements.ts';

/** rows per multi-row INSERT: SQLite allows 32,766 bound variables (7 per entry row, 3 per node row) */
const ENTRY_ROWS_PER_INSERT = 4000;
const NODE_ROWS_PER_INSERT = 10_000;

export type AuditAppendInput = {
  kind: string;
  subject_ref: string;
  occurred_at: string;
  /** minted when absent */
  audit_id?: string;
} & (
  | {
      /** what the entry commits to (only its digest enters the chain) */
      record: unknown;
    }
  | {
      /** the digest of what the entry commits to, when the caller computed it (`digestOfCanonical`) */
      record_digest: string;
    }
);

export interface AuditMark {
  size: number;
  lastLeafHash: string;
  /** copies of the frontier hashes (taken per unit of work: cheaper than their JSON, which only restore needs) */
  frontier: Uint8Array[];
}

export class AuditAppender {
  readonly #trx: Transaction<Database>;
  readonly #newUuid: () => string;
  #size: number;
  #lastLeafHash: string;
  #range: CompactRange;

  private constructor(
    trx: Transaction<Database>,
    newUuid: () => string,
    size: number,
    lastLeafHash: string,
    range: CompactRange,
  ) {
    this.#trx = trx;
    this.#newUuid = newUuid;
    this.#size = size;
    this.#lastLeafHash = lastLeafHash;
    this.#range = range;
  }

  static async begin(trx: Transaction<Database>, postgres: boolean, newUuid: () => string): Promise<AuditAppender> {
    const [tip] = (await (postgres ? READ_TIP_FOR_UPDATE : READ_TIP).execute(trx, {})).rows;
    if (!tip) throw new AarError('audit_unavailable', 'the audit chain has no state row');
    const range = CompactRange.fromJSON(JSON.parse(tip.frontier));
    if (range.size !== Number(tip.size)) throw new AarError('audit_unavailable', 'the audit tip is inconsistent');
    return new AuditAppender(trx, newUuid, Number(tip.size), tip.last_leaf_hash, range);
  }

  get size(): number {
    return this.#size;
  }

  mark(): AuditMark {
    return { size: this.#size, lastLeafHash: this.#lastLeafHash, frontier: this.#range.hashes };
  }

  restore(mark: AuditMark): void {
    this.#size = mark.size;
    this.#lastLeafHash = mark.lastLeafHash;
    this.#range = CompactRange.fromJSON({ size: mark.size, hashes: mark.frontier.map(encodeBase64) });
  }

  /** MTH of the entries appended so far, this batch's included (what a checkpoint of `size` signs). */
  root(): Uint8Array {
    return this.#range.root();
  }

  async append(input: AuditAppendInput): Promise<{ audit_id: string; index: number }> {
    const [appended] = await this.appendMany([input]);
    return appended!;
  }

  /**
   * Appends entries in order with multi-row inserts (bulk imports, benchmarks): the same entries as calling
   * `append` for each, in fewer statements.
   */
  async appendMany(inputs: readonly AuditAppendInput[]): Promise<Array<{ audit_id: string; index: number }>> {
    const mark = this.mark();
    const entries: EntryRow[] = [];
    const nodes: NodeRow[] = [];
    for (const input of inputs) {
      const entry: AuditEntry = {
        schema_version: AUDIT_ENTRY_SCHEMA,
        audit_id: input.audit_id ?? mintedId('audit', this.#newUuid()),
        index: this.#size,
        occurred_at: input.occurred_at,
        kind: input.kind,
        subject_ref: input.subject_ref,
        record_digest: 'record_digest' in input ? input.record_digest : recordDigest(input.record),
        prev_leaf_hash: this.#lastLeafHash,
      };
      const { text, leafHash } = encodeEntry(entry);
      this.#range.append(new Uint8Array(leafHash), (range, hash) => {
        const width = range.end - range.begin;
        nodes.push({ level: Math.log2(width), idx: range.begin / width, hash: encodeBase64(hash) });
      });
      const leafB64 = leafHash.toString('base64');
      entries.push({
        idx: entry.index,
        audit_id: entry.audit_id,
        kind: entry.kind,
        subject_ref: entry.subject_ref,
        occurred_at: entry.occurred_at,
        entry: text,
        leaf_hash: leafB64,
      });
      this.#size += 1;
      this.#lastLeafHash = leafB64;
    }
    try {
      if (entries.length <= PREPARED_ROWS && nodes.length <= PREPARED_ROWS) {
        if (entries.length > 0) await INSERT_ENTRIES.execute(this.#trx, {}, entries);
        if (nodes.length > 0) await INSERT_NODES.execute(this.#trx, {}, nodes);
      } else {
        await this.#insertInChunks(entries, nodes);
      }
    } catch (error) {
      this.restore(mark);
      // fail closed: the change this entry records is rolled back with it and the caller gets 503
      throw new AarError('audit_unavailable', 'the audit chain cannot be written; nothing was committed', {
        cause: error,
      });
    }
    return entries.map((e) => ({ audit_id: e.audit_id, index: Number(e.idx) }));
  }

  /** Bulk appends: multi-row inserts as large as the bound-variable limits allow. */
  async #insertInChunks(entries: EntryRow[], nodes: NodeRow[]): Promise<void> {
    for (let i = 0; i < entries.length; i += ENTRY_ROWS_PER_INSERT) {
      await this.#trx
        .insertInto('audit_entries')
        .values(entries.slice(i, i + ENTRY_ROWS_PER_INSERT))
        .execute();
    }
    for (let i = 0; i < nodes.length; i += NODE_ROWS_PER_INSERT) {
      await this.#trx
        .insertInto('audit_nodes')
        .values(nodes.slice(i, i + NODE_ROWS_PER_INSERT))
        .execute();
    }
  }

  /** Writes the tip back; called once per batch, after every unit. */
  async flush(nowIso: string): Promise<void> {
    await WRITE_TIP.execute(this.#trx, {
      size: this.#size,
      last_leaf_hash: this.#lastLeafHash,
      frontier: JSON.stringify(this.#range.toJSON()),
      updated_at: nowIso,
    });
  }
}
