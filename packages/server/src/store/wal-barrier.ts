/**
 * Durability of the embedded SQLite store, off the event loop. The main connection runs `synchronous = NORMAL`: in
 * WAL mode a commit writes its frames to the `-wal` file with write(2) and returns without an fsync (SQLite stays
 * corruption-safe; only the last transactions can be lost on power failure). This barrier makes commits durable
 * itself, with fdatasync(2) of the `-wal` file on its own file descriptor, run on libuv's thread pool, and nothing
 * that depends on a commit is answered before a sync that started after that commit has completed
 * (`durable()`; the write queue and the HTTP `onSend` hook wait on it).
 *
 * WHY NORMAL + THIS SYNC GIVES FULL'S GUARANTEE FOR EVERY ANSWERED REQUEST
 * - Under FULL, SQLite's commit is: write the frames (the last one marked as a commit frame), then fdatasync the
 *   WAL. Here the commit writes the same frames; the sync is the same system call on the same inode (an fsync acts
 *   on the file, not on the descriptor), only later and on another thread. A sync that starts after the commit's
 *   write(2) returned puts those frames (and the file size that covers them) on disk, so from the answer on the
 *   commit survives a power failure exactly as under FULL.
 * - Between commit and sync nothing leaves the process: the write queue resolves a unit only after the barrier
 *   covering its batch; the `onSend` hook holds every answer while a write is unsynced or a sync is in flight (so a
 *   read of a committed but unsynced row waits too); webhook deliveries call `durable()` first.
 * - Where FULL syncs more than NORMAL: the WAL header when the log restarts. NORMAL syncs it too ("the WAL file
 *   header is synchronized when a WAL file begins to be reused after a checkpoint"), and frames of a new
 *   generation whose header were lost would fail the salt check at recovery: lost, never misread; and they are not
 *   answered before our sync, which flushes header and frames together.
 * - Checkpoints sync under NORMAL as under FULL (the WAL before copying, the database file after), so pages leave
 *   the log only once they are durable in the database file.
 *
 * THE `-wal` FILE'S LIFECYCLE, AND OUR DESCRIPTOR
 * - SQLite creates the file when the first connection opens the database in WAL mode, and deletes it only when
 *   the last connection closes (after a full checkpoint). The main connection stays open for the life of the store,
 *   so the file exists, with one inode, from the switch to this barrier (after migrations and bootstrap, which run
 *   under FULL: openRuntime) until `close()`, which waits for the last sync first.
 * - Our descriptor is opened at that switch, after writes have happened (the file exists). Opening before any new
 *   write matters: since Linux 4.13 a writeback error is reported to every descriptor opened before it, on its
 *   next fsync (errseq), so our fd sees any error on pages written afterwards.
 * - A checkpoint does not replace the file: after a complete checkpoint the next writer restarts the log from its
 *   beginning in the same file (new salts), and with `journal_size_limit` truncates it with ftruncate(2): same
 *   inode, so our descriptor keeps naming the file SQLite writes.
 * - If the file were replaced or removed under us (another program, a mistaken cleanup), syncing our descriptor
 *   would make the wrong file durable. After every sync the path is stat-ed and compared with our descriptor's
 *   inode and device: a difference, or a missing file, fails closed like a failed sync.
 *
 * FAILURE: an fsync error cannot be retried safely (Linux may drop the dirty pages and report the error once), so
 * the first failed sync fails the store for good: that sync's waiters and every later `durable()` reject with
 * `audit_unavailable`, every write statement is refused (statement-cache.ts), health answers 503, until a restart
 * replays the WAL from disk.
 */
import { closeSync, fdatasync, fstat, fstatSync, openSync, stat, type Stats } from 'node:fs';
import { AarError } from '@aar/core';

/** Makes the file behind `fd` durable (fdatasync); tests inject slow or failing ones. */
export type WalSync = (fd: number) => Promise<void>;

export const fdatasyncFile: WalSync = (fd) =>
  new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));

export interface WalBarrierOptions {
  /** the `-wal` file of the database */
  walFile: string;
  sync?: WalSync;
  /** after every successful sync, with the `-wal` file's size in bytes (the checkpointer's trigger) */
  onSynced?: (walBytes: number) => void;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const RESOLVED = Promise.resolve();
const ignore = (): void => undefined;

export class WalBarrier {
  readonly #walFile: string;
  readonly #sync: WalSync;
  readonly #onSynced: ((walBytes: number) => void) | undefined;
  readonly #fd: number;
  readonly #identity: Pick<Stats, 'ino' | 'dev'>;
  /** a write statement ran since the last sync started */
  #dirty = false;
  /** the sync in flight; it covers everything written before it started */
  #inFlight: Promise<void> | undefined;
  /** callers that wrote while a sync was in flight: one sync, started when the current one ends, covers them all */
  #next: Deferred | undefined;
  #failure: AarError | undefined;
  #closed = false;

  constructor(options: WalBarrierOptions, identity: Pick<Stats, 'ino' | 'dev'>, fd: number) {
    this.#walFile = options.walFile;
    this.#sync = options.sync ?? fdatasyncFile;
    this.#onSynced = options.onSynced;
    this.#fd = fd;
    this.#identity = identity;
  }

  /** Opens the descriptor on the existing `-wal` file (see the lifecycle above); throws when it does not exist. */
  static open(options: WalBarrierOptions): WalBarrier {
    const fd = openSync(options.walFile, 'r');
    try {
      const { ino, dev } = fstatSync(fd);
      return new WalBarrier(options, { ino, dev }, fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Called before every write statement on the connection (BEGIN and COMMIT included); throws once failed. */
  markWritten(): void {
    if (this.#failure) throw this.#failure;
    this.#dirty = true;
  }

  /** The reason the store refuses writes, once a sync failed. */
  get failure(): AarError | undefined {
    return this.#failure;
  }

  /** Whether an answer must wait for `durable()`: a write not yet synced, a sync in flight, or a failed store. */
  get pending(): boolean {
    return this.#dirty || this.#inFlight !== undefined || this.#failure !== undefined;
  }

  /** Resolves once everything committed before the call is on disk; rejects with `audit_unavailable` if it cannot be. */
  durable(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (!this.#dirty) return this.#inFlight ?? RESOLVED;
    if (this.#inFlight === undefined) return this.#start();
    if (!this.#next) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      promise.catch(ignore);
      this.#next = { promise, resolve, reject };
    }
    return this.#next.promise;
  }

  /** Waits for the last sync (its failure is already recorded) and closes the descriptor. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.durable().catch(ignore);
    this.#closed = true;
    closeSync(this.#fd);
  }

  #start(): Promise<void> {
    this.#dirty = false;
    const run = this.#syncOnce().then(
      (walBytes) => {
        this.#inFlight = undefined;
        this.#continue();
        try {
          this.#onSynced?.(walBytes);
        } catch {
          // a checkpoint trigger must never fail a sync
        }
      },
      (error: unknown) => {
        this.#failure ??= new AarError(
          'audit_unavailable',
          'the write-ahead log could not be made durable; the store refuses writes until the service restarts',
          { cause: error },
        );
        this.#inFlight = undefined;
        this.#continue();
        throw this.#failure;
      },
    );
    run.catch(ignore);
    this.#inFlight = run;
    return run;
  }

  #continue(): void {
    const next = this.#next;
    if (!next) return;
    this.#next = undefined;
    if (this.#failure) next.reject(this.#failure);
    else this.#start().then(next.resolve, next.reject);
  }

  async #syncOnce(): Promise<number> {
    if (this.#closed) throw new Error('the store is closed');
    await this.#sync(this.#fd);
    const [own, named] = await Promise.all([fstatAsync(this.#fd), statAsync(this.#walFile)]);
    if (named.ino !== this.#identity.ino || named.dev !== this.#identity.dev || own.ino !== this.#identity.ino) {
      throw new Error(
        `the write-ahead log ${this.#walFile} was replaced: the synced file is not the one SQLite writes`,
      );
    }
    return own.size;
  }
}

const fstatAsync = (fd: number): Promise<Stats> =>
  new Promise((resolve, reject) => fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats))));

const statAsync = (path: string): Promise<Stats> =>
  new Promise((resolve, reject) => stat(path, (error, stats) => (error ? reject(error) : resolve(stats))));
