/**
 * Group commit: every state change of the service is a unit of work run through this queue. Units that arrive while
 * a batch is committing wait, then run together in the next transaction, each inside its own savepoint, and the
 * batch commits once: one fsync for many requests, instead of one per request.
 *
 * INVARIANTS
 * - A unit's promise resolves only after the transaction holding its writes, its events and its audit entries has
 *   committed and that commit is durable (`store.durable()`: on SQLite the sync of the log that covers it, made off
 *   the event loop by wal-barrier.ts): nothing is answered that is not durable and in the audit chain. The next
 *   batch does not wait for that sync: its statements and commit overlap the flush of the previous one, and the
 *   batches whose commits one sync covers resolve together. `onCommit` listeners run after the sync too.
 * - If that sync fails, the batch's units are rejected with `audit_unavailable` (committed in the file, but not
 *   known durable, so never answered as done) and the store refuses every later write until restart.
 * - A unit that throws is rolled back alone (savepoint) and rejected with its own error; the others commit.
 * - If the batch cannot commit (or the audit chain cannot be written), every unit of it is rejected with
 *   `audit_unavailable` (HTTP 503) and nothing of it is committed: fail closed.
 * - Units run one after another inside a batch, so a unit sees the writes of the units before it.
 */
import { AarError, isAarError } from '@aar/core';
import { CompiledQuery, type Transaction } from 'kysely';
import { AuditAppender } from '../audit/audit-appender.ts';
import type { Clock } from '../clock.ts';
import type { Store } from './open-store.ts';
import { deferredStatement } from './pg-deferring-dialect.ts';
import { executeCompiled } from './prepared-query.ts';
import type { Database } from './schema.ts';

export type WriteUnit<T> = (trx: Transaction<Database>) => Promise<T>;

interface Pending {
  unit: WriteUnit<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface WriteQueueOptions {
  /** most units per transaction */
  maxBatch?: number;
  /** called when a whole batch fails (logging) */
  onBatchFailure?: (error: unknown, units: number) => void;
}

const appenders = new WeakMap<Transaction<Database>, AuditAppender>();
/** compiled once: the same text on SQLite and PostgreSQL */
const SAVEPOINT = CompiledQuery.raw('savepoint aar_unit');
const RELEASE = CompiledQuery.raw('release savepoint aar_unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint aar_unit');
/**
 * PostgreSQL only: a unit's savepoint (after the first unit, with the previous unit's release: the simple query
 * protocol takes several statements) is held until the unit's first statement and sent with it, as the batch's
 * `begin` is with its first unit's (pg-deferring-dialect.ts): a unit costs no round trip of its own before its work,
 * and a batch's `begin` none at all. The last unit's savepoint is released by the commit.
 */
const HELD_SAVEPOINT = deferredStatement(SAVEPOINT.sql);
const HELD_RELEASE_AND_SAVEPOINT = deferredStatement('release savepoint aar_unit; savepoint aar_unit');

/** The audit appender of the batch `trx` belongs to. Throws outside a write unit: state changes go through the queue. */
export function auditOf(trx: Transaction<Database>): AuditAppender {
  const appender = appenders.get(trx);
  if (!appender) throw new AarError('internal', 'a state change ran outside the write queue');
  return appender;
}

export class WriteQueue {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #newUuid: () => string;
  readonly #maxBatch: number;
  readonly #onBatchFailure: ((error: unknown, units: number) => void) | undefined;
  #queue: Pending[] = [];
  #running = false;
  #batches = 0;
  #units = 0;
  readonly #commitListeners = new Set<() => void>();

  constructor(store: Store, clock: Clock, newUuid: () => string, options: WriteQueueOptions = {}) {
    this.#store = store;
    this.#clock = clock;
    this.#newUuid = newUuid;
    this.#maxBatch = options.maxBatch ?? 512;
    this.#onBatchFailure = options.onBatchFailure;
  }

  /** batches committed or failed so far (for metrics and tests) */
  get batches(): number {
    return this.#batches;
  }

  /** units run so far; units / batches is the mean group size */
  get units(): number {
    return this.#units;
  }

  /**
   * Calls `listener` after every batch that committed at least one unit (the webhook worker wakes on it). Listeners
   * must not throw and must return at once. Returns the function that removes it.
   */
  onCommit(listener: () => void): () => void {
    this.#commitListeners.add(listener);
    return () => this.#commitListeners.delete(listener);
  }

  run<T>(unit: WriteUnit<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ unit: unit as WriteUnit<unknown>, resolve: resolve as (v: unknown) => void, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      // Yield two turns of the event loop before taking a batch. The first lets the requests read in the same turn
      // enqueue their units: without it, better-sqlite3 (synchronous: every await resolves in a microtask) would run
      // each batch inside the macrotask of the request that started it, one unit and one fsync per batch. The second
      // reads the requests that arrived while that turn ran (the clients answered by the previous commit): under
      // load they join this batch instead of waiting for the next commit, so the fsync is shared by about twice as
      // many units. Idle, a turn costs microseconds.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.#queue.length > 0) {
        // a checkpoint about to finish the log holds new batches for a few milliseconds (wal-checkpointer.ts)
        const gate = this.#store.beforeWriteBatch();
        if (gate) await gate;
        const batch = this.#queue.splice(0, this.#maxBatch);
        await this.#runBatch(batch);
        if (this.#queue.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.#running = false;
    }
  }

  async #runBatch(batch: Pending[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    const postgres = this.#store.dialect === 'postgres';
    /** units taken out of this batch, not run: they go first in the next one (see LOCK ORDER) */
    let later: Pending[] = [];
    this.#batches += 1;
    try {
      await this.#store.db.transaction().execute(async (trx) => {
        // the tip is read (and locked on PostgreSQL) at the flush, or when a unit settles the appender first
        const appender = AuditAppender.deferred(trx, postgres, this.#newUuid);
        appenders.set(trx, appender);
        // PostgreSQL: the savepoint of the unit that succeeded last, still to release (see HELD_SAVEPOINT)
        let unreleased = false;
        for (let i = 0; i < batch.length; i++) {
          const pending = batch[i]!;
          const mark = appender.mark();
          if (postgres) await executeCompiled(trx, unreleased ? HELD_RELEASE_AND_SAVEPOINT : HELD_SAVEPOINT);
          else await executeCompiled(trx, SAVEPOINT);
          unreleased = false;
          try {
            const value = await pending.unit(trx);
            if (postgres) unreleased = true;
            else await executeCompiled(trx, RELEASE);
            outcomes.push({ ok: true, value });
          } catch (error) {
            await executeCompiled(trx, ROLLBACK_TO);
            await executeCompiled(trx, RELEASE);
            appender.restore(mark);
            outcomes.push({ ok: false, error });
          }
          // LOCK ORDER (PostgreSQL): a batch locks rows in its units (spend rows, approvals) and the audit tip at
          // its end, in every instance. A unit that settled the appender (the scheduled checkpoint, an external
          // entry) took the tip already; a unit after it locking a row that another instance's batch holds while
          // that batch waits for the tip would deadlock (broken after deadlock_timeout by failing a whole batch).
          // So the batch ends with that unit, and the units after it run first in the next batch.
          if (postgres && appender.settled && i < batch.length - 1) {
            later = batch.splice(i + 1);
            break;
          }
        }
        try {
          await appender.flush(this.#clock.now().toISOString());
        } catch (error) {
          throw auditUnavailable(error);
        }
        // the next statement on the held connection is our COMMIT: its units wait on durable() below
        this.#store.queueCommitNext();
      });
    } catch (error) {
      this.#onBatchFailure?.(error, batch.length);
      const failure = isAarError(error) && error.code === 'audit_unavailable' ? error : auditUnavailable(error);
      for (const pending of batch) pending.reject(failure);
      return;
    } finally {
      this.#units += batch.length;
      if (later.length > 0) this.#queue.unshift(...later);
    }
    // not awaited: the next batch runs while this one's commit is being made durable
    this.#store.durable().then(
      () => this.#settle(batch, outcomes),
      (error: unknown) => {
        this.#onBatchFailure?.(error, batch.length);
        const failure = isAarError(error) && error.code === 'audit_unavailable' ? error : notDurable(error);
        for (const pending of batch) pending.reject(failure);
      },
    );
  }

  #settle(batch: Pending[], outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>): void {
    batch.forEach((pending, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
    if (outcomes.some((o) => o.ok)) for (const listener of this.#commitListeners) listener();
  }
}

function notDurable(cause: unknown): AarError {
  return new AarError('audit_unavailable', 'the commit could not be made durable; the store refuses writes', { cause });
}

function auditUnavailable(cause: unknown): AarError {
  return new AarError('audit_unavailable', 'the audit chain cannot be written; nothing was committed', { cause });
}
