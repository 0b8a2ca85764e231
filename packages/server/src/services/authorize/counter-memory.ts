/**
 * What one instance knows of the purchase counters' buckets (counter-buckets.ts): per subject, every bucket starting
 * at or after `from`, as last verified against the decisions or written by this instance itself (a bucket absent
 * from the memory is known to be empty, so a deleted row is noticed). Like SpendMemory (chained-spend.ts): a bucket
 * read that equals the memory costs nothing more; any other value is recomputed from the decisions
 * (maintained-counters.ts).
 *
 * Bounded: past LIMIT buckets over all subjects it starts over (each subject is then recounted once on its next read).
 * A subject's buckets before its latest `from` (the UTC day of its widest window's start) are dropped when `from`
 * moves on, once a day per subject.
 */
import { SPANS, type Span, type SubjectKind } from './counter-buckets.ts';

export interface BucketValue {
  purchases: number;
  spend: number;
}

/** a bucket's values per currency (an absent currency: nothing) */
export type CurrencyValues = Map<string, BucketValue>;

export class SubjectBuckets {
  readonly spans: Record<Span, Map<string, CurrencyValues>> = { minute: new Map(), hour: new Map(), day: new Map() };
  constructor(public from: string) {}

  get(span: Span, start: string): CurrencyValues | undefined {
    return this.spans[span].get(start);
  }
}

export class CounterMemory {
  static readonly LIMIT = 100_000;
  readonly #subjects = new Map<string, SubjectBuckets>();
  #size = 0;

  /** The subject's buckets when every one from `need` on is known; drops those before `need`. */
  subject(kind: SubjectKind, id: string, need: string): SubjectBuckets | undefined {
    const known = this.#subjects.get(`${kind} ${id}`);
    if (!known || known.from > need) return undefined;
    if (known.from < need) {
      for (const span of SPANS) {
        for (const start of known.spans[span].keys()) {
          if (start < need) {
            known.spans[span].delete(start);
            this.#size -= 1;
          }
        }
      }
      known.from = need;
    }
    return known;
  }

  /** Every bucket of the subject from `from` on, as a recount found them (replacing what was known). */
  cover(kind: SubjectKind, id: string, from: string, buckets: SubjectBuckets['spans']): void {
    this.#drop(kind, id);
    this.#room(SPANS.reduce((n, span) => n + buckets[span].size, 0));
    const known = new SubjectBuckets(from);
    for (const span of SPANS) for (const [start, values] of buckets[span]) this.#put(known, span, start, values);
    this.#subjects.set(`${kind} ${id}`, known);
  }

  /** One bucket's values (all its currencies), when the subject is known that far back. */
  replace(kind: SubjectKind, id: string, span: Span, start: string, values: CurrencyValues): void {
    const known = this.#subjects.get(`${kind} ${id}`);
    if (!known || start < known.from) return;
    if (this.#room(1)) this.#put(known, span, start, values);
  }

  /** One bucket's value in one currency (what a write left it at), when the subject is known that far back. */
  set(kind: SubjectKind, id: string, span: Span, start: string, currency: string, value: BucketValue): void {
    const known = this.#subjects.get(`${kind} ${id}`);
    if (!known || start < known.from || !this.#room(1)) return;
    const values = new Map(known.get(span, start) ?? []);
    values.set(currency, value);
    this.#put(known, span, start, values);
  }

  #put(known: SubjectBuckets, span: Span, start: string, values: CurrencyValues): void {
    const map = known.spans[span];
    const live = new Map([...values].filter(([, v]) => v.purchases !== 0 || v.spend !== 0));
    if (!map.has(start)) this.#size += 1;
    map.set(start, live);
  }

  /** false (and everything forgotten) when `n` more buckets would pass the bound */
  #room(n: number): boolean {
    if (this.#size + n <= CounterMemory.LIMIT) return true;
    this.#subjects.clear();
    this.#size = 0;
    return false;
  }

  #drop(kind: SubjectKind, id: string): void {
    const known = this.#subjects.get(`${kind} ${id}`);
    if (!known) return;
    for (const span of SPANS) this.#size -= known.spans[span].size;
    this.#subjects.delete(`${kind} ${id}`);
  }
}

const memories = new WeakMap<object, CounterMemory>();

/** The memory of one service instance (one AppContext). */
export function counterMemoryOf(ctx: object): CounterMemory {
  let memory = memories.get(ctx);
  if (!memory) {
    memory = new CounterMemory();
    memories.set(ctx, memory);
  }
  return memory;
}

/** Whether two buckets hold the same values in every currency (a zero value is no value). Allocates nothing. */
export function sameValues(a: CurrencyValues | undefined, b: CurrencyValues | undefined): boolean {
  let left = 0;
  if (a) {
    for (const [currency, v] of a) {
      if (v.purchases === 0 && v.spend === 0) continue;
      left += 1;
      const w = b?.get(currency);
      if (w === undefined || w.purchases !== v.purchases || w.spend !== v.spend) return false;
    }
  }
  let right = 0;
  if (b) for (const v of b.values()) if (v.purchases !== 0 || v.spend !== 0) right += 1;
  return left === right;
}
