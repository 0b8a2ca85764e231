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
 *   covering its batch; the `onSend` hook holds every answer until every commit it may depend on is synced (a read
 *   of a committed but unsynced row included: see WHICH COMMITS AN ANSWER WAITS FOR below); webhook deliveries call
 *   `durable()` first.
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
 *   beginning in the same file (new salts), and with `journal_size_limit` truncates it with ftruncate(2), or the
 *   checkpoint thread's TRUNCATE pass truncates it to zero (wal-checkpointer.ts): same inode either way, so our
 *   descriptor keeps naming the file SQLite writes.
 * - If the file were replaced or removed under us (another program, a mistaken cleanup), the data SQLite
 *   writes through its descriptor would live in an unlinked inode, lost at the next start. After syncs (at most
 *   every 50 ms, off the answers' path) the path is stat-ed and compared with our descriptor's inode and device: a
 *   difference, or a missing file, fails the store like a failed sync.
 *
 * FAILURE: an fsync error cannot be retried safely (Linux may drop the dirty pages and report the error once), so
 * the first failed sync fails the store for good: that sync's waiters and every later `durable()` reject with
 * `audit_unavailable`, every write statement is refused (statement-cache.ts), health answers 503, until a restart
 * replays the WAL from disk.
 */
import { closeSync, fdatasync, fstat, fstatSync, openSync, stat, type Stats } from 'node:fs';
import { AarError } from '@aar/core';
import type { WalIndex } from './wal-index.ts';

/** Makes the file behind `fd` durable (fdatasync); tests inject slow or failing ones. */
export type WalSync = (fd: number) => Promise<void>;

export const fdatasyncFile: WalSync = (fd) =>
  new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));

export interface WalBarrierOptions {
  /** the `-wal` file of the database */
  walFile: string;
  sync?: WalSync;
  /**
   * after syncs (not on the answers' path), with the log's length in bytes (the checkpointer's trigger): read from
   * `walIndex` when given (a torn read skips that call), else the `-wal` file's size
   */
  onSynced?: (logBytes: number) => void;
  /** the database's wal-index (wal-index.ts); its owner closes it */
  walIndex?: WalIndex;
}

interface Waiter {
  /** resolved once this many commits are durable */
  target: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const RESOLVED = Promise.resolve();
const ignore = (): void => undefined;

/** What a statement is to the barrier (statement-cache.ts classifies each once). */
export type StatementKind = 'read' | 'write' | 'commit' | 'rollback';

/**
 * WHICH COMMITS AN ANSWER WAITS FOR. Commits are numbered as they happen (a COMMIT, or a write outside a
 * transaction). An answer may depend on (a) rows it read: a read sees every commit made before it; (b) its own
 * writes outside the write queue: their commits; (c) its write-queue units: each resolves only after the sync that
 * covers its batch. So `seen` = the number of commits as of the latest read, or the latest commit outside the write
 * queue, whichever is later (global, monotonic: at least what any one answer read or wrote), and an answer waits
 * only while fewer commits than `seen` are durable. The write queue's own commit does not move `seen` (point c):
 * otherwise, with the next batch committing while the previous one's sync is in flight, every answer of a batch
 * would wait one more sync for the next batch, which it never read.
 */
export class WalBarrier {
  readonly #walFile: string;
  readonly #sync: WalSync;
  readonly #onSynced: ((logBytes: number) => void) | undefined;
  readonly #walIndex: WalIndex | undefined;
  readonly #fd: number;
  readonly #identity: Pick<Stats, 'ino' | 'dev'>;
  /** commits made on the connection */
  #committed = 0;
  /** commits known durable */
  #synced = 0;
  /** commits the sync in flight covers */
  #syncing = 0;
  /** see WHICH COMMITS AN ANSWER WAITS FOR */
  #seen = 0;
  /** the next COMMIT is the write queue's (set by the queue at the end of its batch, with the connection held) */
  #queueCommitNext = false;
  #inFlight = false;
  #waiters: Waiter[] = [];
  #failure: AarError | undefined;
  #closed = false;
  #inspecting = false;
  #identityCheckedAt = -Infinity;

  constructor(options: WalBarrierOptions, identity: Pick<Stats, 'ino' | 'dev'>, fd: number) {
    this.#walFile = options.walFile;
    this.#sync = options.sync ?? fdatasyncFile;
    this.#onSynced = options.onSynced;
    this.#walIndex = options.walIndex;
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

  /**
   * Called before every statement on the connection (statement-cache.ts); `commit` for a COMMIT or a write outside a
   * transaction. Throws for any write once the store failed (a ROLLBACK is always let through).
   */
  noteStatement(kind: StatementKind): void {
    switch (kind) {
      case 'read':
        this.#seen = this.#committed;
        return;
      case 'rollback':
        this.#queueCommitNext = false;
        return;
      case 'write':
        if (this.#failure) throw this.#failure;
        return;
      case 'commit': {
        if (this.#failure) throw this.#failure;
        this.#committed += 1;
        if (this.#queueCommitNext) this.#queueCommitNext = false;
        else this.#seen = this.#committed;
      }
    }
  }

  /** The write queue, with the connection held, just before its COMMIT: that commit's units wait on `durable()`. */
  queueCommitNext(): void {
    this.#queueCommitNext = true;
  }

  /** The reason the store refuses writes, once a sync failed. */
  get failure(): AarError | undefined {
    return this.#failure;
  }

  /** Whether an answer must wait (`answerDurable()`): a commit it may depend on is not durable yet, or the store failed. */
  get answerPending(): boolean {
    return this.#synced < this.#seen || this.#failure !== undefined;
  }

  /** Resolves once everything committed before the call is on disk; rejects with `audit_unavailable` if it cannot be. */
  durable(): Promise<void> {
    return this.#durableUpTo(this.#committed);
  }

  /** Resolves once every commit an answer leaving now may depend on is on disk (see WHICH COMMITS...). */
  answerDurable(): Promise<void> {
    return this.#durableUpTo(this.#seen);
  }

  /** Waits for the last sync (its failure is already recorded) and closes the descriptor. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.durable().catch(ignore);
    this.#closed = true;
    closeSync(this.#fd);
  }

  #durableUpTo(target: number): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (target <= this.#synced) return RESOLVED;
    const promise = new Promise<void>((resolve, reject) => this.#waiters.push({ target, resolve, reject }));
    // one sync at a time: commits made while one is in flight are covered by the next, started when it ends
    if (!this.#inFlight) this.#start();
    return promise;
  }

  #start(): void {
    this.#inFlight = true;
    this.#syncing = this.#committed;
    this.#syncOnce().then(
      () => {
        this.#inFlight = false;
        this.#synced = Math.max(this.#synced, this.#syncing);
        const waiting = this.#waiters;
        this.#waiters = waiting.filter((w) => w.target > this.#synced);
        for (const w of waiting) if (w.target <= this.#synced) w.resolve();
        if (this.#waiters.length > 0) this.#start();
        this.#inspectFile();
      },
      (error: unknown) => {
        this.#inFlight = false;
        this.#fail(error);
      },
    );
  }

  #fail(error: unknown): void {
    this.#failure ??= new AarError(
      'audit_unavailable',
      'the write-ahead log could not be made durable; the store refuses writes until the service restarts',
      { cause: error },
    );
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const w of waiting) w.reject(this.#failure);
  }

  async #syncOnce(): Promise<void> {
    if (this.#closed) throw new Error('the store is closed');
    await this.#sync(this.#fd);
  }

  /**
   * After a sync, never on an answer's path: the log's length for the checkpointer (from the wal-index, else the
   * file's size by fstat of our descriptor; skipped while one is in flight), and, at most every IDENTITY_EVERY_MS,
   * the tripwire for a replaced file (see the lifecycle above). Off the path because what a sync makes durable is
   * our descriptor's inode, the one SQLite writes through its own descriptor (both opened on the path before any
   * replacement could matter); a replaced path means the next start would not find that inode, so the store fails
   * from the moment it is seen.
   */
  #inspectFile(): void {
    if (this.#inspecting || this.#closed) return;
    this.#inspecting = true;
    const now = performance.now();
    const checkIdentity = now - this.#identityCheckedAt >= IDENTITY_EVERY_MS;
    if (checkIdentity) this.#identityCheckedAt = now;
    Promise.all([
      fstatAsync(this.#fd),
      checkIdentity ? statAsync(this.#walFile) : undefined,
      this.#walIndex?.logBytes(),
    ])
      .then(([own, named, logBytes]) => {
        const replaced = named && (named.ino !== this.#identity.ino || named.dev !== this.#identity.dev);
        if (replaced || own.ino !== this.#identity.ino) {
          throw new Error(
            `the write-ahead log ${this.#walFile} was replaced: the synced file is not the one SQLite writes`,
          );
        }
        try {
          const length = this.#walIndex ? logBytes : own.size;
          if (length !== undefined) this.#onSynced?.(length);
        } catch {
          // a checkpoint trigger must never fail the store
        }
      })
      .catch((error: unknown) => {
        if (!this.#closed) this.#fail(error);
      })
      .finally(() => {
        this.#inspecting = false;
      });
  }
}

/** how often, at most, the `-wal` path is compared with our descriptor after syncs (the replaced-file tripwire) */
const IDENTITY_EVERY_MS = 50;

const fstatAsync = (fd: number): Promise<Stats> =>
  new Promise((resolve, reject) => fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats))));

const statAsync = (path: string): Promise<Stats> =>
  new Promise((resolve, reject) => stat(path, (error, stats) => (error ? reject(error) : resolve(stats))));
