/**
 * The bookkeeping both signing threads share (signing-thread.ts, attempt-signing-thread.ts): what is asked within
 * one turn of the event loop is grouped per private key, so the thread gets one message per key and turn; a key
 * crosses to the thread once, then travels as a small handle; each batch in flight waits under its id for the reply
 * that settles it. The thread itself, the messages and what a failure means stay with each user.
 * INVARIANT: a request is either queued, in flight under exactly one id, or settled; `failAll` settles everything in
 * flight, and handles are forgotten with the thread they were given to (`forgetHandles`).
 */
import type { KeyObject } from 'node:crypto';

export interface Batch<Key, Req> {
  key: Key;
  requests: Req[];
}

export class PerKeyBatches<Key extends { privateKey: KeyObject }, Req extends { reject: (error: Error) => void }> {
  readonly #flush: () => void;
  #queued = new Map<KeyObject, Batch<Key, Req>>();
  #flushScheduled = false;
  #handles = new WeakMap<KeyObject, number>();
  #nextHandle = 1;
  #nextId = 1;
  readonly #inFlight = new Map<number, Req[]>();

  /** `flush`: called once per turn in which something was queued; it takes the batches with `take()` */
  constructor(flush: () => void) {
    this.#flush = flush;
  }

  /** Queues `request` under `key` and makes sure this turn's batches are flushed. */
  queue(key: Key, request: Req): void {
    let batch = this.#queued.get(key.privateKey);
    if (!batch) {
      batch = { key, requests: [] };
      this.#queued.set(key.privateKey, batch);
    }
    batch.requests.push(request);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => {
        this.#flushScheduled = false;
        this.#flush();
      });
    }
  }

  /** This turn's batches, one per key; the queue starts empty again. */
  take(): Iterable<Batch<Key, Req>> {
    const queued = this.#queued;
    this.#queued = new Map();
    return queued.values();
  }

  /** The key's handle on the current thread, and whether this is its first use there (then the key is sent). */
  handleOf(privateKey: KeyObject): { handle: number; first: boolean } {
    const known = this.#handles.get(privateKey);
    if (known !== undefined) return { handle: known, first: false };
    const handle = this.#nextHandle++;
    this.#handles.set(privateKey, handle);
    return { handle, first: true };
  }

  /** A new thread knows no key: each is sent again on its first use there. */
  forgetHandles(): void {
    this.#handles = new WeakMap();
  }

  /** Puts `requests` in flight; returns the batch id its reply names. */
  send(requests: Req[]): number {
    const id = this.#nextId++;
    this.#inFlight.set(id, requests);
    return id;
  }

  /** The requests the reply `id` settles, taken out of flight; undefined for an id not in flight (stale reply). */
  answered(id: number): Req[] | undefined {
    const requests = this.#inFlight.get(id);
    this.#inFlight.delete(id);
    return requests;
  }

  /** Whether any batch waits for its reply (the thread is kept referenced while one does). */
  get busy(): boolean {
    return this.#inFlight.size > 0;
  }

  /** Refuses every request in flight with `error`. */
  failAll(error: Error): void {
    for (const requests of this.#inFlight.values()) for (const r of requests) r.reject(error);
    this.#inFlight.clear();
  }
}
