/**
 * Ed25519 signatures made on one worker thread, in batches, for the webhook worker (delivery-signer.ts): the event
 * loop, which also makes the POSTs, only queues messages and reads back signatures. Everything asked for within one
 * turn of the event loop goes in one message, so the thread wakes once per batch rather than once per signature
 * (libuv's pool wakes a thread per job, which cost more CPU than the signature itself under load).
 * The thread's code is plain CommonJS evaluated from the string below (no module to resolve: the same in the sources,
 * under tests and in dist/). It holds the service's private keys (KeyObjects, cloned into it by postMessage once
 * each, then named by a handle) in this process's memory, as the main thread does; nothing leaves the process.
 * If the thread cannot be started or dies, every signature still pending is refused and later ones are made on the
 * main thread (`fallback`): slower, never wrong.
 */
import type { KeyObject } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { startEvalThread } from './eval-thread.ts';
import { PerKeyBatches } from './per-key-batches.ts';

const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { sign } = require('node:crypto');
const keys = new Map();
parentPort.on('message', (batch) => {
  try {
    if (batch.key) keys.set(batch.handle, batch.key);
    const key = keys.get(batch.handle);
    if (!key) throw new Error('unknown signing key');
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an ed25519 key');
    // the batch's messages arrive as one buffer (cut by \`lengths\`) and the signatures go back as one (64 bytes each),
    // both transferred: a clone per message cost the event loop more than the rest of its signing work
    const out = new Uint8Array(64 * batch.lengths.length);
    let offset = 0;
    batch.lengths.forEach((length, i) => {
      const signature = sign(null, new Uint8Array(batch.bytes, offset, length), key);
      if (signature.length !== 64) throw new Error('not a 64-byte signature');
      out.set(signature, 64 * i);
      offset += length;
    });
    parentPort.postMessage({ id: batch.id, signatures: out }, [out.buffer]);
  } catch (error) {
    parentPort.postMessage({ id: batch.id, error: String((error && error.message) || error) });
  }
});
`;

export interface ThreadSigningKey {
  keyId: string;
  privateKey: KeyObject;
  /** the same signature on the calling thread (used when the thread is gone) */
  signSync(message: Uint8Array): Uint8Array;
}

interface Request {
  message: Uint8Array;
  resolve: (signature: Uint8Array) => void;
  reject: (error: Error) => void;
}

interface Reply {
  id: number;
  /** the batch's signatures one after another, 64 bytes each */
  signatures?: Uint8Array;
  error?: string;
}

export class SigningThread {
  #worker: Worker | null = null;
  #broken = false;
  /** requests of this turn by private key (by object: two stores may mint the same key id), and those in flight */
  readonly #batches = new PerKeyBatches<ThreadSigningKey, Request>(() => this.#flush());

  /** The Ed25519 signature of `message` by `key`. */
  sign(key: ThreadSigningKey, message: Uint8Array): Promise<Uint8Array> {
    if (this.#broken) return Promise.resolve(key.signSync(message));
    return new Promise((resolve, reject) => this.#batches.queue(key, { message, resolve, reject }));
  }

  /** Ends the thread; signatures still pending are refused. The next `sign` starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#batches.forgetHandles();
    this.#batches.failAll(new Error('the signing thread was closed'));
    if (worker) await worker.terminate();
  }

  #flush(): void {
    const worker = this.#thread();
    for (const { key, requests } of this.#batches.take()) {
      if (!worker) {
        for (const r of requests) r.resolve(key.signSync(r.message));
        continue;
      }
      if (!this.#batches.busy) worker.ref();
      const id = this.#batches.send(requests);
      const { handle, first } = this.#batches.handleOf(key.privateKey);
      // one buffer for the batch, transferred (not cloned): see THREAD_SOURCE
      const lengths = requests.map((r) => r.message.length);
      const bytes = new Uint8Array(lengths.reduce((sum, n) => sum + n, 0));
      let offset = 0;
      for (const r of requests) {
        bytes.set(r.message, offset);
        offset += r.message.length;
      }
      worker.postMessage({ id, handle, ...(first ? { key: key.privateKey } : {}), bytes: bytes.buffer, lengths }, [
        bytes.buffer,
      ]);
    }
  }

  #thread(): Worker | null {
    if (this.#broken) return null;
    if (this.#worker) return this.#worker;
    try {
      // refs the thread while signatures are pending (#flush, #settle)
      const worker: Worker = startEvalThread<Reply>(THREAD_SOURCE, {
        message: (reply) => this.#settle(reply),
        error: (error) => this.#fail(worker, error),
        exit: () => this.#fail(worker, new Error('the signing thread exited')),
      });
      this.#worker = worker;
      return worker;
    } catch {
      this.#broken = true;
      return null;
    }
  }

  #settle(reply: Reply): void {
    const requests = this.#batches.answered(reply.id);
    if (!requests) return;
    if (!this.#batches.busy) this.#worker?.unref();
    const signatures = reply.signatures;
    if (!(signatures instanceof Uint8Array) || signatures.length !== 64 * requests.length) {
      const error = new Error(`signing thread: ${reply.error ?? 'malformed reply'}`);
      for (const r of requests) r.reject(error);
      return;
    }
    requests.forEach((r, i) => r.resolve(signatures.slice(64 * i, 64 * i + 64)));
  }

  /** The thread died (not closed): what it had is refused, and from now on signatures are made here. */
  #fail(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return; // closed already, or an older thread
    this.#worker = null;
    this.#broken = true;
    this.#batches.failAll(error);
  }
}

let shared: SigningThread | undefined;

/**
 * The process's signing thread, started on first use and kept (unref'd: it never holds the process open), so a
 * worker that is stopped and started again, or a second worker, does not pay a thread's start (~20 ms) again.
 */
export function sharedSigningThread(): SigningThread {
  shared ??= new SigningThread();
  return shared;
}
