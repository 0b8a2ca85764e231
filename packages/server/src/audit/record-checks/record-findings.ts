/**
 * What checking the stored records against the audit chain found (CONTRACT section 8): the first record (by the
 * index of the entry that commits to it) that disagrees with that entry, and which entries have their record.
 * Memory: two bits per entry of the log (1M entries: 250 KB) and one finding.
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

export class Bitset {
  readonly #bits: Uint8Array;
  constructor(size: number) {
    this.#bits = new Uint8Array(Math.ceil(size / 8));
  }
  set(i: number): void {
    this.#bits[i >> 3]! |= 1 << (i & 7);
  }
  has(i: number): boolean {
    return (this.#bits[i >> 3]! & (1 << (i & 7))) !== 0;
  }
}

export class RecordFindings {
  /** entries (below `size`) whose event record was found: every `ns.` entry must have one */
  readonly eventAnchored: Bitset;
  /** decision entries whose decision row was found */
  readonly decisionAnchored: Bitset;
  #first: RecordFailure | undefined;

  constructor(readonly size: number) {
    this.eventAnchored = new Bitset(size);
    this.decisionAnchored = new Bitset(size);
  }

  /** Keeps the failure at the lowest entry index (one that names no entry ranks last). */
  fail(failure: RecordFailure): void {
    const rank = (f: RecordFailure): number => f.index ?? Number.MAX_SAFE_INTEGER;
    if (this.#first === undefined || rank(failure) < rank(this.#first)) this.#first = failure;
  }

  get first(): RecordFailure | undefined {
    return this.#first;
  }
}
