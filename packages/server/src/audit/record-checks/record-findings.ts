/**
 * What checking the stored records against the audit chain found (CONTRACT section 8): the first record (by the
 * index of the entry that commits to it) that disagrees with that entry, and which entries have their record.
 * Memory: two bits per entry checked (1M entries: 250 KB) and one finding.
 */
export type RecordFailureReason =
  /** the record's digest is not the one its entry commits to (an edited record) */
  | 'record_digest_mismatch'
  /** a column disagrees with the record the entry commits to (e.g. a decision's `decision` column) */
  | 'record_mismatch'
  /** the entry of a service change has no record (a deleted record) */
  | 'record_missing'
  /** the record names an entry that does not exist */
  | 'record_unanchored'
  /** a signed checkpoint or pack disagrees with the log, or its signature does not verify */
  | 'record_signature_invalid';

export interface RecordFailure {
  reason: RecordFailureReason;
  /** the index of the entry committing to the record (absent when it names no entry of the log) */
  index?: number;
  record: { table: string; id: string };
  /** which member or column differs */
  detail: string;
}

/** One bit per entry of [from, size); indices outside are ignored (their records were checked by an earlier run). */
export class Bitset {
  readonly #bits: Uint8Array;
  constructor(
    readonly from: number,
    readonly size: number,
  ) {
    this.#bits = new Uint8Array(Math.ceil(Math.max(0, size - from) / 8));
  }
  set(i: number): void {
    if (i < this.from || i >= this.size) return;
    const at = i - this.from;
    this.#bits[at >> 3]! |= 1 << (at & 7);
  }
  has(i: number): boolean {
    const at = i - this.from;
    return at >= 0 && i < this.size && (this.#bits[at >> 3]! & (1 << (at & 7))) !== 0;
  }
  /** a copy of the bits (to send to another thread) */
  bytes(): Uint8Array {
    return this.#bits.slice();
  }
  /** sets every bit another Bitset of the same range has set */
  add(bytes: Uint8Array): void {
    if (bytes.length !== this.#bits.length) throw new Error('bitsets of different ranges');
    for (let i = 0; i < bytes.length; i++) this.#bits[i]! |= bytes[i]!;
  }
}

/** What one thread's check of decision rows found (verify/parallel-walk.ts sends it back to the main thread). */
export interface DecisionFindings {
  first?: RecordFailure;
  anchored: Uint8Array;
  seen: number;
  beyond?: number;
}

/** The record tables read in `seq` order, whose progress a verification mark remembers. */
export const SEQ_TABLES = ['decisions', 'events', 'approvals'] as const;
export type SeqTable = (typeof SEQ_TABLES)[number];
export type RecordSeqs = Record<SeqTable, number>;

/**
 * Which records a run checks: those of entries [from, size) and, for the `seq` tables, the rows after `after`.
 * A full run: from 0, after 0 (every row). An incremental run: from and after of the verification mark it resumes.
 */
export interface RecordScope {
  from: number;
  after: RecordSeqs;
}

export const FULL_SCOPE: RecordScope = { from: 0, after: { decisions: 0, events: 0, approvals: 0 } };

export class RecordFindings {
  /** entries of [from, size) whose event record was found: every `ns.` entry must have one */
  readonly eventAnchored: Bitset;
  /** decision entries whose decision row was found */
  readonly decisionAnchored: Bitset;
  #first: RecordFailure | undefined;
  readonly #seen: RecordSeqs;
  readonly #beyond: Partial<RecordSeqs> = {};

  constructor(
    readonly size: number,
    readonly scope: RecordScope = FULL_SCOPE,
  ) {
    this.eventAnchored = new Bitset(scope.from, size);
    this.decisionAnchored = new Bitset(scope.from, size);
    this.#seen = { ...scope.after };
  }

  /** Keeps the failure at the lowest entry index (one that names no entry ranks last). */
  fail(failure: RecordFailure): void {
    const rank = (f: RecordFailure): number => f.index ?? Number.MAX_SAFE_INTEGER;
    if (this.#first === undefined || rank(failure) < rank(this.#first)) this.#first = failure;
  }

  get first(): RecordFailure | undefined {
    return this.#first;
  }

  /** A row of `table` was checked (`beyond`: its entry is at or past `size`, so it waits for the next run). */
  saw(table: SeqTable, seq: number, beyond = false): void {
    if (seq > this.#seen[table]) this.#seen[table] = seq;
    if (beyond && seq <= (this.#beyond[table] ?? Number.MAX_SAFE_INTEGER)) this.#beyond[table] = seq;
  }

  /** This run's decision part, for the thread that merges it (`addDecisions`). */
  decisionFindings(): DecisionFindings {
    const beyond = this.#beyond.decisions;
    return {
      ...(this.#first ? { first: this.#first } : {}),
      anchored: this.decisionAnchored.bytes(),
      seen: this.#seen.decisions,
      ...(beyond === undefined ? {} : { beyond }),
    };
  }

  /** Merges what another thread found checking other decision rows of the same log and scope. */
  addDecisions(other: DecisionFindings): void {
    if (other.first) this.fail(other.first);
    this.decisionAnchored.add(other.anchored);
    this.saw('decisions', other.seen);
    if (other.beyond !== undefined) this.saw('decisions', other.beyond, true);
  }

  /**
   * Per table, the highest `seq` through which every row was checked and anchored below `size`: the next run needs
   * only the rows after it. Rows of a table are written in write batches, which take the audit tip's lock first, so
   * their `seq` order is their commit order: a row committed after this run read its table has a higher `seq` than
   * every row it saw.
   */
  highWater(): RecordSeqs {
    const out = { ...this.#seen };
    for (const table of SEQ_TABLES) {
      const beyond = this.#beyond[table];
      if (beyond !== undefined) out[table] = Math.min(out[table], beyond - 1);
    }
    return out;
  }
}
