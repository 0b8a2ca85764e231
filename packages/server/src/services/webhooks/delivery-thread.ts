/**
 * The webhook delivery thread, main side: the worker (webhook-worker.ts) keeps the outbox (fan-out, leases, due
 * attempts, envelopes, settling) on the event loop and hands each endpoint's round here; the thread signs and POSTs
 * its attempts one after another in commit order (delivery-thread-source.ts) and answers one outcome per attempt it
 * made. So the attempts' signatures (Ed25519 or an HMAC per secret) and the client half of every HTTP exchange run
 * beside the event loop, not on it; the envelopes' signatures run on the signing thread (signing-thread.ts).
 * What crosses: per attempt the webhook id and the body (made here, on the signing thread: delivery-signer.ts, in
 * chunks, so the thread starts on the first attempts while the next bodies are signed); per round the
 * URL, the address the SSRF guard resolved and checked on the main thread (pinned: the thread connects there and
 * nowhere else), the deadline, the response cap, the settle budget, the HMAC keys (decoded by core's
 * parseWebhookSecret) and, once per key, the service's private key (a KeyObject, cloned into the thread; later
 * rounds name it by a handle). Everything stays in this process's memory; nothing is logged.
 * Fail safe: if the thread cannot start, dies, or refuses a round, `deliver` rejects with DeliveryThreadUnavailable
 * and the worker makes that round on the main thread instead (slower, never wrong). A round the thread was making
 * when it died is made again from its first attempt: at least once, with the same webhook-ids.
 * The thread is unref'd while idle (it never holds the process open) and ref'd while a round is out.
 */
import type { KeyObject } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import type { WebhookProfile } from '@aar/core';
import type { Clock } from '../../clock.ts';
import type { DeliveryResponse } from './deliver-attempt.ts';
import { DELIVERY_THREAD_SOURCE } from './delivery-thread-source.ts';
import { startEvalThread } from './eval-thread.ts';

export interface ThreadAttempt {
  webhookId: string;
  /** the body, signed envelope and all (delivery-signer.ts): the thread signs the attempt over it */
  body: Uint8Array;
}

export interface ThreadRound {
  /** keep-alive pool of the round: one per worker instance and endpoint */
  pool: string;
  url: string;
  /** the address the SSRF guard resolved and checked; the only one the thread connects to */
  address: string;
  family: 4 | 6;
  profile: WebhookProfile;
  contentType: string;
  signingKey: { keyId: string; privateKey: KeyObject };
  /** shared_secret: the HMAC keys of the live secrets, newest first */
  macKeys: Uint8Array[];
  /** the first attempts; the rest follow by `append` */
  attempts: ThreadAttempt[];
  /** true when `attempts` is all of the round */
  last: boolean;
  timeoutMs: number;
  maxBytes: number;
  settleEveryMs: number;
  /** an attempt signed ahead longer ago than this, s, is signed again when it is made */
  resignAfterS: number;
  clock: Clock;
  /** true when `clock` is the system clock: the thread reads its own instead of asking for this one */
  systemClock: boolean;
}

/** The outcome of one attempt the thread made, with the clock time (ms) it was made at. */
export interface ThreadOutcome extends DeliveryResponse {
  at: number;
}

export interface RoundHandle {
  /** resolves with the outcomes of the attempts made, in order (a prefix of the round's attempts) */
  outcomes: Promise<ThreadOutcome[]>;
  /** the next attempts of the round, in order; `last` when no more follow */
  append(attempts: ThreadAttempt[], last: boolean): void;
  /** make no further attempt in this round (the one in flight finishes) */
  cancel(): void;
}

export class DeliveryThreadUnavailable extends Error {}

interface Pending {
  resolve: (outcomes: ThreadOutcome[]) => void;
  reject: (error: Error) => void;
  clock: Clock;
}

type Reply =
  | { type: 'done'; id: number; outcomes: ThreadOutcome[] }
  | { type: 'failed'; id: number; error: string }
  | { type: 'clock'; id: number; round: number };

export class DeliveryThread {
  readonly #source: string;
  #worker: Worker | null = null;
  #broken = false;
  #nextId = 1;
  #handles = new WeakMap<KeyObject, number>();
  #nextHandle = 1;
  #rounds = 0;
  readonly #pending = new Map<number, Pending>();

  /** `source`: the thread's code (tests give a broken one to exercise the fallback) */
  constructor(source: string = DELIVERY_THREAD_SOURCE) {
    this.#source = source;
  }

  /** False once the thread could not start or died: the worker then makes its rounds on the main thread. */
  get available(): boolean {
    return !this.#broken;
  }

  /** Rounds the thread made and answered (tests, metrics). */
  get rounds(): number {
    return this.#rounds;
  }

  /** Hands a round to the thread. Rejects with DeliveryThreadUnavailable when it cannot be made there. */
  deliver(round: ThreadRound): RoundHandle {
    const worker = this.#thread();
    if (!worker) {
      return {
        outcomes: Promise.reject(new DeliveryThreadUnavailable('the delivery thread is not available')),
        append: () => undefined,
        cancel: () => undefined,
      };
    }
    const id = this.#nextId++;
    const outcomes = new Promise<ThreadOutcome[]>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, clock: round.clock });
    });
    if (this.#pending.size === 1) worker.ref();
    let handle = this.#handles.get(round.signingKey.privateKey);
    const first = handle === undefined;
    if (handle === undefined) {
      handle = this.#nextHandle++;
      this.#handles.set(round.signingKey.privateKey, handle);
    }
    worker.postMessage({
      type: 'round',
      id,
      pool: round.pool,
      url: round.url,
      address: round.address,
      family: round.family,
      profile: round.profile,
      contentType: round.contentType,
      keyHandle: handle,
      keyId: round.signingKey.keyId,
      ...(first ? { key: round.signingKey.privateKey } : {}),
      macKeys: round.macKeys,
      attempts: round.attempts,
      last: round.last,
      timeoutMs: round.timeoutMs,
      maxBytes: round.maxBytes,
      settleEveryMs: round.settleEveryMs,
      resignAfterS: round.resignAfterS,
      askClock: !round.systemClock,
    });
    return {
      outcomes,
      append: (attempts, last) => {
        if (this.#pending.has(id)) this.#worker?.postMessage({ type: 'append', id, attempts, last });
      },
      cancel: () => {
        if (this.#pending.has(id)) this.#worker?.postMessage({ type: 'cancel', id });
      },
    };
  }

  /** Closes the keep-alive pools whose names start with `prefix` (a stopped worker's). */
  closePools(prefix: string): void {
    this.#worker?.postMessage({ type: 'close', prefix });
  }

  /** Ends the thread; rounds still out are refused. The next `deliver` starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#handles = new WeakMap();
    this.#failAll(new DeliveryThreadUnavailable('the delivery thread was closed'));
    if (worker) await worker.terminate();
  }

  #thread(): Worker | null {
    if (this.#broken) return null;
    if (this.#worker) return this.#worker;
    try {
      const worker: Worker = startEvalThread<Reply>(this.#source, {
        message: (reply) => this.#onMessage(worker, reply),
        error: () => this.#fail(worker, new DeliveryThreadUnavailable('the delivery thread failed')),
        exit: () => this.#fail(worker, new DeliveryThreadUnavailable('the delivery thread exited')),
      });
      this.#worker = worker;
      return worker;
    } catch {
      this.#broken = true;
      return null;
    }
  }

  #onMessage(worker: Worker, reply: Reply): void {
    if (reply.type === 'clock') {
      // the round's clock is not the system clock (tests): the thread asks for it before each attempt
      const clock = this.#pending.get(reply.round)?.clock;
      const now = (clock ?? { now: () => new Date() }).now().getTime();
      worker.postMessage({ type: 'clock', id: reply.id, now });
      return;
    }
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker?.unref();
    if (reply.type === 'done') {
      this.#rounds += 1;
      pending.resolve(reply.outcomes);
    } else pending.reject(new DeliveryThreadUnavailable(`the delivery thread refused a round: ${reply.error}`));
  }

  /** The thread died (not closed): its rounds are refused, and from now on rounds are made on the main thread. */
  #fail(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = null;
    this.#broken = true;
    this.#failAll(error);
  }

  #failAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}

let shared: DeliveryThread | undefined;

/** The process's delivery thread, started on first use and kept (unref'd while idle). */
export function sharedDeliveryThread(): DeliveryThread {
  shared ??= new DeliveryThread();
  return shared;
}
