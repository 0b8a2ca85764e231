/**
 * Appends audit entries inside a write batch (store/write-queue.ts), in the same transaction as the state changes
 * they record. The tip (size, last leaf hash, compact-range frontier) is read — under `FOR UPDATE` on PostgreSQL, so
 * batches of all instances append in one order — when the appender is *settled*: at the end of the batch (`flush`),
 * or earlier when a unit needs positions (`settle`: an entry's index, the size or root for a checkpoint). Until then
 * the batch's entries wait in memory and are written together at the end: two multi-row INSERTs per batch instead of
 * two per entry (on PostgreSQL, for a batch of up to FLUSH_MAX_ENTRIES, one statement with the tip's write), and on
 * PostgreSQL the tip is locked only for the end of the batch, so the batches of several instances overlap until then. Once settled, every append is written at once. A unit of work that fails rolls its
 * entries back with its savepoint, and the appender's memory with `restore()`.
 * INVARIANT: entry i's prev_leaf_hash is entry i-1's leaf hash; audit_nodes holds every perfect subtree hash.
 */
import { AarError, CompactRange, encodeBase64, mintedId } from '@aar/core';
import type { CompiledQuery, Transaction } from 'kysely';
import { deferred } from '../store/pg-deferring-dialect.ts';
import type { Database } from '../store/index.ts';
import { AUDIT_ENTRY_SCHEMA, encodeEntry, recordDigest, type AuditEntry } from './audit-entry.ts';
import {
  FLUSH_MAX_ENTRIES,
  FLUSH_MAX_NODES,
  batchEndStatement,
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
  /** entries appended (written or not) at the mark */
  count: number;
  /** of those, entries written */
  written: number;
  /** the tip after the written ones, when settled at the mark */
  tip?: { size: number; lastLeafHash: string; frontier: Uint8Array[] };
}

/** An append waiting for its position; `result.index` is filled in when the entry is written. */
interface PendingEntry {
  audit_id: string;
  kind: string;
  subject_ref: string;
  record_digest: string;
  occurred_at: string;
  result: { audit_id: string; index: number };
}

interface Tip {
  size: number;
  lastLeafHash: string;
  range: CompactRange;
}

export class AuditAppender {
  readonly #trx: Transaction<Database>;
  readonly #newUuid: () => string;
  readonly #postgres: boolean;
  /** undefined until settled: the tip has not been read (nor locked) yet */
  #tip: Tip | undefined;
  readonly #entries: PendingEntry[] = [];
  #written = 0;

  private constructor(trx: Transaction<Database>, postgres: boolean, newUuid: () => string) {
    this.#trx = trx;
    this.#postgres = postgres;
    this.#newUuid = newUuid;
  }

  /** An appender that reads (and on PostgreSQL locks) the tip at once: every append is written as it is made. */
  static async begin(trx: Transaction<Database>, postgres: boolean, newUuid: () => string): Promise<AuditAppender> {
    const appender = new AuditAppender(trx, postgres, newUuid);
    await appender.settle();
    return appender;
  }

  /** An appender that keeps appends in memory until `settle` or `flush` (the write queue's batches). */
  static deferred(trx: Transaction<Database>, postgres: boolean, newUuid: () => string): AuditAppender {
    return new AuditAppender(trx, postgres, newUuid);
  }

  /**
   * Whether the tip has been read (and on PostgreSQL locked) in this transaction: by a unit that needed positions,
   * or by the flush. A unit that locks rows after this point takes them after the tip (see write-decision.ts).
   */
  get settled(): boolean {
    return this.#tip !== undefined;
  }

  /** Entries in the log, this batch's included; only once settled (a position is unknown before). */
  get size(): number {
    return this.#settledTip().size + (this.#entries.length - this.#written);
  }

  mark(): AuditMark {
    const tip = this.#tip;
    return {
      count: this.#entries.length,
      written: this.#written,
      ...(tip ? { tip: { size: tip.size, lastLeafHash: tip.lastLeafHash, frontier: tip.range.hashes } } : {}),
    };
  }

  /** Back to the mark, after the unit's savepoint was rolled back (which removed what it wrote since the mark). */
  restore(mark: AuditMark): void {
    this.#entries.length = mark.count;
    this.#written = mark.written;
    this.#tip = mark.tip && {
      size: mark.tip.size,
      lastLeafHash: mark.tip.lastLeafHash,
      range: CompactRange.fromJSON({ size: mark.tip.size, hashes: mark.tip.frontier.map(encodeBase64) }),
    };
  }

  /** MTH of the entries appended so far, this batch's included (what a checkpoint of `size` signs); settled only. */
  root(): Uint8Array {
    if (this.#written < this.#entries.length) throw new AarError('internal', 'settle() the appender before root()');
    return this.#settledTip().range.root();
  }

  /**
   * Appends one entry. Its `index` is known once it is written: at once when settled, else when the batch is
   * flushed (before any unit's promise resolves); a unit that needs it inside the batch calls `settle` first.
   */
  async append(input: AuditAppendInput): Promise<{ audit_id: string; index: number }> {
    const [appended] = await this.appendMany([input]);
    return appended!;
  }

  /**
   * Appends entries in order (bulk imports, benchmarks): the same entries as calling `append` for each, written
   * with multi-row inserts.
   */
  async appendMany(inputs: readonly AuditAppendInput[]): Promise<Array<{ audit_id: string; index: number }>> {
    const results: Array<{ audit_id: string; index: number }> = [];
    for (const input of inputs) {
      const auditId = input.audit_id ?? mintedId('audit', this.#newUuid());
      const result = { audit_id: auditId, index: -1 };
      this.#entries.push({
        audit_id: auditId,
        kind: input.kind,
        subject_ref: input.subject_ref,
        record_digest: 'record_digest' in input ? input.record_digest : recordDigest(input.record),
        occurred_at: input.occurred_at,
        result,
      });
      results.push(result);
    }
    if (this.#tip) await this.#writePending();
    return results;
  }

  /** Reads (and on PostgreSQL locks) the tip if not yet done, and writes every entry still in memory. */
  async settle(): Promise<void> {
    if (!this.#tip) await this.#readTip();
    await this.#writePending();
  }

  /** Reads (and on PostgreSQL locks) the tip. */
  async #readTip(): Promise<void> {
    const [tip] = (await (this.#postgres ? READ_TIP_FOR_UPDATE : READ_TIP).execute(this.#trx, {})).rows;
    if (!tip) throw new AarError('audit_unavailable', 'the audit chain has no state row');
    const range = CompactRange.fromJSON(JSON.parse(tip.frontier));
    if (range.size !== Number(tip.size)) throw new AarError('audit_unavailable', 'the audit tip is inconsistent');
    this.#tip = { size: Number(tip.size), lastLeafHash: tip.last_leaf_hash, range };
  }

  /**
   * Settles, then writes the tip back; called once per batch, after every unit, as the batch's last statement before
   * its COMMIT. On PostgreSQL, when the batch's entries are still in memory and few, they, their nodes and the tip
   * are written by one statement (a round trip is what costs there, and the tip is locked from its read to the
   * commit), and the batch's last write is held and sent with the COMMIT (store/pg-deferring-dialect.ts): its
   * failure then fails the commit, which rolls the whole batch back, as a failure here would.
   */
  async flush(nowIso: string): Promise<void> {
    if (this.#postgres) {
      if (!this.#tip) await this.#readTip();
      const pending = this.#chainPending();
      if (pending && pending.entries.length <= FLUSH_MAX_ENTRIES && pending.nodes.length <= FLUSH_MAX_NODES) {
        await this.#holdTipWrite(batchEndStatement(this.#trx, pending.entries, pending.nodes, this.#tipArgs(nowIso)));
        this.#written = this.#entries.length;
        return;
      }
      if (pending) {
        await this.#guarded(pending.mark, () => this.#insert(pending.entries, pending.nodes));
        this.#written = this.#entries.length;
      }
      await this.#holdTipWrite(WRITE_TIP.bind(this.#trx, this.#tipArgs(nowIso)));
      return;
    }
    await this.settle();
    await WRITE_TIP.execute(this.#trx, this.#tipArgs(nowIso));
  }

  /** PostgreSQL: the batch's last write waits for the COMMIT; its failure surfaces there and aborts the batch. */
  async #holdTipWrite(statement: CompiledQuery<unknown>): Promise<void> {
    // awaited all the same: it must reach the connection before the COMMIT does (answered at once, empty)
    await this.#trx.executeQuery(deferred(statement));
  }

  #tipArgs(nowIso: string): { size: number; last_leaf_hash: string; frontier: string; updated_at: string } {
    const tip = this.#settledTip();
    return {
      size: tip.size,
      last_leaf_hash: tip.lastLeafHash,
      frontier: JSON.stringify(tip.range.toJSON()),
      updated_at: nowIso,
    };
  }

  #settledTip(): Tip {
    if (!this.#tip) throw new AarError('internal', 'the audit appender is not settled: call settle() first');
    return this.#tip;
  }

  /** Chains the entries not written yet onto the tip and inserts them with their subtree nodes. */
  async #writePending(): Promise<void> {
    const pending = this.#chainPending();
    if (!pending) return;
    await this.#guarded(pending.mark, () => this.#insert(pending.entries, pending.nodes));
    this.#written = this.#entries.length;
  }

  /**
   * Chains the entries not written yet onto the tip (in memory: the tip moves past them) and gives their rows and
   * subtree nodes to write, with the mark to restore if the write fails; undefined when nothing is pending.
   */
  #chainPending(): { entries: EntryRow[]; nodes: NodeRow[]; mark: AuditMark } | undefined {
    if (this.#written === this.#entries.length) return undefined;
    const tip = this.#settledTip();
    const mark = this.mark();
    const entries: EntryRow[] = [];
    const nodes: NodeRow[] = [];
    for (const pending of this.#entries.slice(this.#written)) {
      const entry: AuditEntry = {
        schema_version: AUDIT_ENTRY_SCHEMA,
        audit_id: pending.audit_id,
        index: tip.size,
        occurred_at: pending.occurred_at,
        kind: pending.kind,
        subject_ref: pending.subject_ref,
        record_digest: pending.record_digest,
        prev_leaf_hash: tip.lastLeafHash,
      };
      const { text, leafHash } = encodeEntry(entry);
      tip.range.append(new Uint8Array(leafHash), (range, hash) => {
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
      pending.result.index = entry.index;
      tip.size += 1;
      tip.lastLeafHash = leafB64;
    }
    return { entries, nodes, mark };
  }

  /** Runs the write of chained entries; on failure back to `mark`, and audit_unavailable. */
  async #guarded(mark: AuditMark, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.restore(mark);
      // fail closed: the change this entry records is rolled back with it and the caller gets 503
      throw new AarError('audit_unavailable', 'the audit chain cannot be written; nothing was committed', {
        cause: error,
      });
    }
  }

  /** Prepared multi-row inserts of up to PREPARED_ROWS rows; bulk appends as large as bound-variable limits allow. */
  async #insert(entries: EntryRow[], nodes: NodeRow[]): Promise<void> {
    if (entries.length > ENTRY_ROWS_PER_INSERT / 4 || nodes.length > NODE_ROWS_PER_INSERT / 4) {
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
      return;
    }
    for (let i = 0; i < entries.length; i += PREPARED_ROWS) {
      await INSERT_ENTRIES.execute(this.#trx, {}, entries.slice(i, i + PREPARED_ROWS));
    }
    for (let i = 0; i < nodes.length; i += PREPARED_ROWS) {
      await INSERT_NODES.execute(this.#trx, {}, nodes.slice(i, i + PREPARED_ROWS));
    }
  }
}
