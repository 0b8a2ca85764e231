/**
 * Checkpoints of the embedded SQLite store, on their own connection in a worker thread, so that copying the log
 * back into the database file (and its two fsyncs) never blocks the event loop. The main connection runs
 * `wal_autocheckpoint = 0`; after every sync of the log (wal-barrier.ts) the main thread passes the log's length here:
 * its frames as SQLite's wal-index counts them (wal-index.ts), with `journal_size_limit = TRUNCATE_AT_LIMITS ×
 * limitBytes` so that a restarted log overwrites the file in place (open-store.ts says why); or, when the wal-index
 * cannot be read, the `-wal` file's size, with `journal_size_limit = limitBytes` so that every restart cuts the file
 * back to the limit and its size tells the log's length.
 *
 * WHEN
 * - A length above the limit means the log has grown past it since its last restart (a writer restarts it after a
 *   complete checkpoint): a checkpoint is due. At or below it, the log restarted (or is still small): nothing to do.
 * - A log restarts only if a checkpoint copied every frame and no commit came in between (`noteWrite` tells; the
 *   pass's own answer describes the log as it was when the pass began); under sustained load the
 *   writer commits every few milliseconds, and a passive checkpoint that runs beside it almost never catches up. So
 *   one round is two passes: a FREE pass beside the writer (copies nearly everything, however long it takes), then,
 *   if frames remain, a GATED pass: the write queue holds its next batch (`beforeWrite`) for the few milliseconds it
 *   takes to copy what the free pass left, so the log ends fully checkpointed and the next commit restarts it. The
 *   event loop runs on meanwhile (reads, HTTP); only new write batches wait. If no batch comes within GATE_WAIT_MS
 *   (the writer is idle), the gated pass runs without waiting for one.
 * - `PRAGMA wal_checkpoint(PASSIVE)` never waits for readers or writers: frames a reader still needs stay, and
 *   the next growth of the log triggers another round.
 * - A LARGE LOG (over TRUNCATE_AT_LIMITS times the limit, a bulk load or a big cascade) is truncated here, not by
 *   the next writer: once a round copied it all back, a TRUNCATE pass runs with writes held as for a gated pass
 *   (`wal_checkpoint(TRUNCATE)`: it copies whatever came since, restarts the log and truncates the file to zero
 *   bytes, same inode). Otherwise the next commit restarts the log and truncates the file (to `journal_size_limit`)
 *   itself, on the event loop: freeing hundreds of megabytes took that commit 70-100 ms (measured: the first
 *   revocation cascade after a bulk load, bench/RESULTS.md, issue 10). With `busy_timeout = 0` the pass never
 *   waits: a reader still on an old snapshot makes it answer busy, and the next writer truncates as before. Readers
 *   are not blocked by it (a fully copied log is read from the database file, through read mark 0, which it leaves free).
 *
 * DURABILITY is not at stake here: a committed frame is as durable in the log as in the database file, and the
 * checkpoint syncs the log before copying and the database file before the log may be reused.
 * FAILURE: if the thread cannot start, dies or a checkpoint fails, `onBroken` is called once (open-store.ts turns
 * SQLite's own automatic checkpoint back on: on the event loop again, slower, but the log stays bounded).
 * The thread's code is plain CommonJS evaluated from the string below (as signing-thread.ts does: the same in the
 * sources, under tests and in dist/); it loads better-sqlite3 from the path this module resolves.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
db.pragma('synchronous = FULL');
db.pragma('wal_autocheckpoint = 0');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = db.pragma(message === 'truncate' ? 'wal_checkpoint(TRUNCATE)' : 'wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ busy: result.busy, log: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
`;

/** how long a gated pass waits for the write queue to reach its next batch before running anyway */
const GATE_WAIT_MS = 20;
/** a round that started on a log larger than this many times the limit ends with a TRUNCATE pass (see WHEN) */
export const TRUNCATE_AT_LIMITS = 4;
/** how long `close` waits for the thread to finish its checkpoint and close its connection */
const CLOSE_WAIT_MS = 10_000;

export interface WalCheckpointerOptions {
  /** the database file */
  file: string;
  /** a log longer than this (in bytes of the `-wal` file) has grown past the limit since its last restart */
  limitBytes: number;
  /** the thread failed: checkpoints must be made some other way (called once) */
  onBroken: (error: unknown) => void;
}

interface Reply {
  busy?: number;
  log?: number;
  checkpointed?: number;
  error?: string;
}

type State = 'idle' | 'free' | 'gate-wanted' | 'gated' | 'truncate-wanted' | 'truncating';

export class WalCheckpointer {
  readonly #options: WalCheckpointerOptions;
  #worker: Worker | null = null;
  #broken = false;
  #state: State = 'idle';
  /**
   * The length that triggered the current round, or the last one that could not complete (a reader held frames): a
   * round starts again only once the log grew past it. A round that completed (the next commit restarts the log)
   * or truncated the log resets it, so the restarted log gets its rounds as soon as it passes the limit, even when
   * the first sync after the restart already finds it past the limit (writes held during the round, then released).
   */
  #triggeredAt = 0;
  #gate: { promise: Promise<void>; resolve: () => void } | undefined;
  #gateTimer: NodeJS.Timeout | undefined;
  #rounds = 0;
  #passes = 0;
  /** a write ran on the main connection since the current pass was posted (its result then says nothing of now) */
  #wroteDuringPass = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: WalCheckpointerOptions) {
    this.#options = options;
  }

  /** rounds started and passes completed (tests, metrics) */
  get stats(): { rounds: number; passes: number } {
    return { rounds: this.#rounds, passes: this.#passes };
  }

  /** After a sync of the log: starts a round when the log has grown past the limit (see WHEN). */
  walSynced(logBytes: number): void {
    if (logBytes <= this.#options.limitBytes) {
      this.#triggeredAt = 0;
      return;
    }
    if (this.#broken || this.#state !== 'idle' || logBytes <= this.#triggeredAt) return;
    this.#triggeredAt = logBytes;
    this.#rounds += 1;
    this.#pass('free');
  }

  /**
   * Resolves once no round is under way (at once when none is, or the thread is gone). Tests and benchmarks use it
   * to start a measurement from a quiet store: a round copying a bulk load's log back competes for the disk and a core.
   */
  whenIdle(): Promise<void> {
    if (this.#state === 'idle' || this.#broken) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Before every write statement on the main connection (open-store.ts): cheap. */
  noteWrite(): void {
    this.#wroteDuringPass = true;
  }

  /** Before a write batch begins: a promise while a gated or TRUNCATE pass wants the writer held, else undefined. */
  beforeWrite(): Promise<void> | undefined {
    if (this.#state === 'gate-wanted' || this.#state === 'truncate-wanted') this.#startGated();
    return this.#gate?.promise;
  }

  /** Stops the thread once its current checkpoint ended; its connection closes (the main one closes last). */
  async close(): Promise<void> {
    this.#broken = true;
    this.#endGate();
    this.#wakeIdle();
    const worker = this.#worker;
    this.#worker = null;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    const timer = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }

  #startGated(): void {
    clearTimeout(this.#gateTimer);
    this.#gateTimer = undefined;
    let resolve!: () => void;
    const promise = new Promise<void>((res) => (resolve = res));
    this.#gate = { promise, resolve };
    this.#pass(this.#state === 'truncate-wanted' ? 'truncating' : 'gated');
  }

  /** Holds the next write batch for `kind` (or runs it after GATE_WAIT_MS if none comes). */
  #wantGate(kind: 'gate-wanted' | 'truncate-wanted'): void {
    this.#state = kind;
    this.#gateTimer = setTimeout(() => {
      if (this.#state === kind) this.#startGated();
    }, GATE_WAIT_MS);
    this.#gateTimer.unref();
  }

  #endGate(): void {
    clearTimeout(this.#gateTimer);
    this.#gateTimer = undefined;
    const gate = this.#gate;
    this.#gate = undefined;
    gate?.resolve();
  }

  #pass(kind: 'free' | 'gated' | 'truncating'): void {
    const worker = this.#thread();
    if (!worker) {
      this.#state = 'idle';
      this.#endGate();
      this.#wakeIdle();
      return;
    }
    this.#state = kind;
    this.#wroteDuringPass = false;
    worker.ref();
    worker.postMessage(kind === 'truncating' ? 'truncate' : 'checkpoint');
  }

  #answered(reply: Reply): void {
    this.#worker?.unref();
    if (reply.error !== undefined) {
      this.#fail(new Error(`checkpoint failed: ${reply.error}`));
      return;
    }
    this.#passes += 1;
    if (this.#state === 'truncating') {
      // busy: a reader held an old snapshot (or a write came outside the write queue); the next writer truncates
      if (reply.busy === 0) this.#triggeredAt = 0;
    } else {
      // PASSIVE reports the frames of the log as it was when the pass began: complete only if nothing came since
      const complete = reply.log === reply.checkpointed && !this.#wroteDuringPass;
      if (this.#state === 'free' && !complete) {
        this.#wantGate('gate-wanted');
        return;
      }
      if (complete && this.#triggeredAt > TRUNCATE_AT_LIMITS * this.#options.limitBytes) {
        if (this.#gate) this.#pass('truncating');
        else this.#wantGate('truncate-wanted');
        return;
      }
      if (complete) this.#triggeredAt = 0;
    }
    this.#state = 'idle';
    this.#endGate();
    this.#wakeIdle();
  }

  #wakeIdle(): void {
    const waiting = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiting) resolve();
  }

  #fail(error: unknown): void {
    const worker = this.#worker;
    this.#worker = null;
    this.#state = 'idle';
    this.#endGate();
    this.#wakeIdle();
    if (worker) void worker.terminate();
    if (this.#broken) return;
    this.#broken = true;
    this.#options.onBroken(error);
  }

  #thread(): Worker | null {
    if (this.#broken) return null;
    if (this.#worker) return this.#worker;
    try {
      const sqliteModule = createRequire(import.meta.url).resolve('better-sqlite3');
      const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { file: this.#options.file, sqliteModule } });
      worker.unref();
      worker.on('message', (reply: Reply) => this.#answered(reply));
      worker.on('error', (error) => this.#fail(error));
      worker.on('exit', (code) => {
        if (this.#worker === worker) this.#fail(new Error(`the checkpoint thread exited (${code})`));
      });
      this.#worker = worker;
      return worker;
    } catch (error) {
      this.#fail(error);
      return null;
    }
  }
}
