/**
 * Webhook attempts signed on a thread of their own (issue 9): the body (the envelope's canonical JSON, its Ed25519
 * signature, COSE_Sign1 for cose) and the headers (HMAC-SHA256 or the `v1a` Ed25519 signature) are made by
 * attempt-signing-worker.ts, so the event loop, which also makes the POSTs, only hands envelopes over and takes
 * bytes back. Everything asked for within one turn of the event loop goes in one message per service key.
 * Unlike signing-thread.ts (plain CommonJS evaluated from a string), this thread runs a module, so it uses the very
 * code of core and of delivery-envelope.ts rather than a copy: from the sources through a tsx bootstrap
 * (attempt-signing-worker-source.mjs), from dist/ the compiled module.
 * FAILURE: if the thread cannot start or dies, what it had is refused with ThreadUnavailableError and it is not
 * started again; callers then sign on their own thread (delivery-signer.ts). An item the thread could not sign
 * (bad input) is refused with ItemRefusedError, so the caller redoes it where the failure is thrown as core throws it.
 */
import type { KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { SignedWebhookDelivery } from '@aar/core';
import { WEBHOOK_CONTENT_TYPES } from '@aar/core';
import type {
  AttemptBatch,
  AttemptBatchReply,
  AttemptThreadOptions,
  AttemptToSign,
} from './attempt-signing-protocol.ts';
import { PerKeyBatches } from './per-key-batches.ts';

/** Bodies kept (by the thread, and by the fallback on the main thread): a few MiB at most (envelopes are ~1 KiB), enough for a fan-out round to every endpoint. */
export const BODY_CACHE_ENTRIES = 4_096;

export interface AttemptSigningKey {
  keyId: string;
  privateKey: KeyObject;
}

export class ThreadUnavailableError extends Error {}
export class ItemRefusedError extends Error {}

interface Request {
  item: AttemptToSign;
  resolve: (signed: SignedWebhookDelivery) => void;
  reject: (error: Error) => void;
}

function workerModule(): URL {
  return new URL(
    import.meta.url.endsWith('.ts') ? './attempt-signing-worker-source.mjs' : './attempt-signing-worker.js',
    import.meta.url,
  );
}

export class AttemptSigningThread {
  #worker: Worker | null = null;
  #broken = false;
  readonly #batches = new PerKeyBatches<AttemptSigningKey, Request>(() => this.#flush());
  readonly #options: AttemptThreadOptions;
  /** attempts signed by the thread (tests check that the thread, not the fallback, did the work) */
  signed = 0;
  /** bodies the thread signed afresh (the rest came from its cache) */
  bodiesMade = 0;

  readonly #module: URL;

  /** `module`: the thread's code (tests give one that cannot load, to see the fallback) */
  constructor(options: Partial<AttemptThreadOptions> = {}, module: URL = workerModule()) {
    this.#options = { maxBodies: options.maxBodies ?? BODY_CACHE_ENTRIES };
    this.#module = module;
  }

  /** False once the thread failed: callers sign on their own thread from then on. */
  get available(): boolean {
    return !this.#broken;
  }

  sign(key: AttemptSigningKey, item: AttemptToSign): Promise<SignedWebhookDelivery> {
    if (this.#broken) return Promise.reject(new ThreadUnavailableError('the attempt-signing thread is not running'));
    return new Promise((resolve, reject) => this.#batches.queue(key, { item, resolve, reject }));
  }

  /** Ends the thread; what is pending is refused. The next `sign` starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#batches.forgetHandles();
    this.#batches.failAll(new ThreadUnavailableError('the attempt-signing thread was closed'));
    if (worker) await worker.terminate();
  }

  #flush(): void {
    const worker = this.#thread();
    for (const { key, requests } of this.#batches.take()) {
      if (!worker) {
        const error = new ThreadUnavailableError('the attempt-signing thread could not start');
        for (const r of requests) r.reject(error);
        continue;
      }
      if (!this.#batches.busy) worker.ref();
      const id = this.#batches.send(requests);
      const { handle, first } = this.#batches.handleOf(key.privateKey);
      const batch: AttemptBatch = {
        id,
        handle,
        keyId: key.keyId,
        ...(first ? { key: key.privateKey } : {}),
        items: requests.map((r) => r.item),
      };
      worker.postMessage(batch);
    }
  }

  #thread(): Worker | null {
    if (this.#broken) return null;
    if (this.#worker) return this.#worker;
    try {
      const worker = new Worker(this.#module, { workerData: this.#options });
      worker.on('message', (reply: AttemptBatchReply) => this.#settle(reply));
      worker.on('error', (error) => this.#fail(worker, error));
      worker.on('exit', () => this.#fail(worker, new Error('the attempt-signing thread exited')));
      // idle, the thread never holds the process open; #flush refs it while work is pending
      worker.unref();
      this.#worker = worker;
      return worker;
    } catch {
      this.#broken = true;
      return null;
    }
  }

  #settle(reply: AttemptBatchReply): void {
    const requests = this.#batches.answered(reply.id);
    if (!requests) return;
    if (!this.#batches.busy) this.#worker?.unref();
    this.bodiesMade += reply.bodiesMade ?? 0;
    const { bodies, lengths, headers } = reply;
    if (
      !(bodies instanceof ArrayBuffer) ||
      lengths?.length !== requests.length ||
      headers?.length !== requests.length
    ) {
      const error = new ItemRefusedError(`attempt-signing thread: ${reply.error ?? 'malformed reply'}`);
      for (const r of requests) r.reject(error);
      return;
    }
    let offset = 0;
    requests.forEach((r, i) => {
      const length = lengths[i]!;
      const itemHeaders = headers[i];
      if (length < 0 || !itemHeaders || offset + length > bodies.byteLength) {
        r.reject(new ItemRefusedError(reply.errors?.[i] ?? 'malformed reply'));
        return;
      }
      // a view on the batch's buffer, not a copy: the buffer lives as long as one of its bodies is in use
      const body = new Uint8Array(bodies, offset, length);
      offset += length;
      this.signed += 1;
      r.resolve({ body, contentType: WEBHOOK_CONTENT_TYPES[r.item.profile], headers: itemHeaders });
    });
  }

  /** The thread died (not closed): what it had is refused, and from now on callers sign on their own thread. */
  #fail(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = null;
    this.#broken = true;
    this.#batches.failAll(new ThreadUnavailableError(error.message));
  }
}

let shared: AttemptSigningThread | undefined;

/** The process's attempt-signing thread, started on first use and kept (unref'd when idle). */
export function sharedAttemptSigningThread(): AttemptSigningThread {
  shared ??= new AttemptSigningThread();
  return shared;
}
