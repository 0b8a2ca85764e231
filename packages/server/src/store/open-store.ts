import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import type { Dialect } from './dialect.ts';
import { directSqliteDialect } from './direct-sqlite.ts';
import { migrationProvider } from './migrations/index.ts';
import { DeferringPostgresDialect } from './pg-deferring-dialect.ts';
import { withStatementCache, type WriteWatch } from './statement-cache.ts';
import type { Database } from './schema.ts';
import { WalBarrier, type WalSync } from './wal-barrier.ts';
import { TRUNCATE_AT_LIMITS, WalCheckpointer } from './wal-checkpointer.ts';
import { WalIndex } from './wal-index.ts';

export interface StoreOptions {
  /** PostgreSQL connection string; when absent the embedded SQLite file is used */
  databaseUrl?: string | undefined;
  /** SQLite file path (ignored with databaseUrl) */
  sqliteFile?: string;
  /** PostgreSQL pool size */
  poolSize?: number;
}

export interface DurabilityBarrierOptions {
  /** how the `-wal` file is made durable (fdatasync); tests inject slow or failing ones */
  sync?: WalSync;
  /** log size, in pages, past which the checkpoint thread copies it back (wal-checkpointer.ts) */
  checkpointPages?: number;
}

/** SQLite's own default for `wal_autocheckpoint`, and our checkpoint thread's trigger */
const CHECKPOINT_PAGES = 1000;

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** a human-readable location without credentials, for logs */
  readonly location: string;
  /**
   * Resolves once everything committed before the call is durable: at once on PostgreSQL (its commit is durable)
   * and on SQLite before `useDurabilityBarrier` (FULL); after it, once the sync of the log covering it completed
   * (wal-barrier.ts). Rejects with `audit_unavailable` when the log could not be made durable.
   */
  durable(): Promise<void>;
  /**
   * Whether an answer leaving now must wait for `answerDurable()`: a commit it may have read or made is not durable
   * yet, or the store failed (wal-barrier.ts: WHICH COMMITS AN ANSWER WAITS FOR). Cheap; always false on PostgreSQL.
   */
  readonly answerPending: boolean;
  /** resolves once every commit an answer leaving now may depend on is durable */
  answerDurable(): Promise<void>;
  /** the write queue, with its transaction's connection held, right before its COMMIT (its units wait on `durable()`) */
  queueCommitNext(): void;
  /** set once a sync failed: the store refuses writes until restart, and health says so */
  readonly durabilityFailure: Error | undefined;
  /**
   * SQLite: from now on commits run `synchronous = NORMAL` and are made durable by the barrier, off the event loop,
   * and checkpoints run on their own thread. Call once start-up (migrations, bootstrap: under FULL) is done.
   * No-op on PostgreSQL and on an in-memory database.
   */
  useDurabilityBarrier(options?: DurabilityBarrierOptions): void;
  /** before a write batch: a promise while a checkpoint wants new batches held (wal-checkpointer.ts) */
  beforeWriteBatch(): Promise<void> | undefined;
  /**
   * Resolves once the checkpoint thread has no round under way (SQLite with the barrier); at once otherwise. For
   * tests and benchmarks that measure from a quiet store.
   */
  checkpointIdle(): Promise<void>;
  /** SQLite with the barrier: the write-ahead log's length in bytes, from its wal-index (tests, metrics) */
  walLogBytes(): Promise<number | undefined>;
  close(): Promise<void>;
}

const RESOLVED = Promise.resolve();

// pg returns int8 (our `seq`) as a string by default; our sequences stay far below 2^53.
const PG_INT8 = 20;
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export function openStore(options: StoreOptions): Store {
  if (options.databaseUrl) {
    // pipeline mode: a held statement and the query carrying it go out together (pg-deferring-dialect.ts)
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: pgTypes,
      pipeline: true,
    });
    const db = new Kysely<Database>({ dialect: new DeferringPostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      location: redactUrl(options.databaseUrl),
      durable: () => RESOLVED,
      answerPending: false,
      answerDurable: () => RESOLVED,
      queueCommitNext: () => undefined,
      durabilityFailure: undefined,
      useDurabilityBarrier: () => undefined,
      beforeWriteBatch: () => undefined,
      checkpointIdle: () => RESOLVED,
      walLogBytes: async () => undefined,
      close: () => db.destroy(),
    };
  }
  const file = options.sqliteFile ?? ':memory:';
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL for concurrent readers; synchronous FULL so an answered request survives power loss, not only a crash. FULL
  // until start-up is done; then NORMAL with our own sync of the log off the event loop (useDurabilityBarrier): the
  // same guarantee for every answer (wal-barrier.ts).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Temporary files in memory: above all the savepoint journal of every unit of a write batch (write-queue.ts),
  // which otherwise spills to a temp file past 64 KiB and costs ~50 page writes (syscalls) per decision. It holds
  // rollback data for the open transaction only; durability is the WAL's, unchanged.
  sqlite.pragma('temp_store = MEMORY');
  const watch: WriteWatch = { onStatement: undefined };
  const db = new Kysely<Database>({ dialect: directSqliteDialect(withStatementCache(sqlite, watch)) });
  let barrier: WalBarrier | undefined;
  let checkpointer: WalCheckpointer | undefined;
  let walIndex: WalIndex | undefined;
  return {
    db,
    dialect: 'sqlite',
    location: file,
    durable: () => barrier?.durable() ?? RESOLVED,
    get answerPending() {
      return barrier?.answerPending ?? false;
    },
    answerDurable: () => barrier?.answerDurable() ?? RESOLVED,
    queueCommitNext: () => barrier?.queueCommitNext(),
    get durabilityFailure() {
      return barrier?.failure;
    },
    useDurabilityBarrier(barrierOptions = {}) {
      if (barrier || file === ':memory:') return;
      const pageSize = Number(sqlite.pragma('page_size', { simple: true }));
      const pages = barrierOptions.checkpointPages ?? CHECKPOINT_PAGES;
      // a log of `pages` frames (header 32 bytes, 24 per frame); after a complete checkpoint the writer truncates the
      // log to this size when it restarts it, so a larger file means the log grew past it (wal-checkpointer.ts)
      const limitBytes = 32 + pages * (pageSize + 24);
      const walCheckpointer = new WalCheckpointer({
        file,
        limitBytes,
        onBroken: () => sqlite.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`),
      });
      // the log's length, which the file size stops telling once the file is larger than the log (wal-index.ts)
      walIndex = WalIndex.open(`${file}-shm`);
      // opened while FULL still holds: every commit so far is durable, and the -wal file exists (start-up wrote)
      barrier = WalBarrier.open({
        walFile: `${file}-wal`,
        ...(barrierOptions.sync ? { sync: barrierOptions.sync } : {}),
        ...(walIndex ? { walIndex } : {}),
        onSynced: (logBytes) => walCheckpointer.walSynced(logBytes),
      });
      checkpointer = walCheckpointer;
      const walBarrier = barrier;
      watch.onStatement = (kind) => {
        walBarrier.noteStatement(kind);
        if (kind === 'commit') walCheckpointer.noteWrite();
      };
      // A restarted log overwrites the file from its start; SQLite truncates the file to this size only when it is
      // larger. At the trigger itself (the size the file reaches every round), every restart cut the round's last
      // frames off, with ftruncate in a commit on the event loop: on a filesystem mounted with `discard` that waits
      // for the device (measured: the main thread's most frequent blocked stack under authorize load, with answers
      // held several ms). Above a large log's threshold instead, a steady log is overwritten in place, and only a
      // large one is cut (by the checkpoint thread's TRUNCATE pass). Without the wal-index the file size is the
      // trigger, and it only works if each restart cuts the file back to the trigger.
      sqlite.pragma(`journal_size_limit = ${walIndex ? TRUNCATE_AT_LIMITS * limitBytes : limitBytes}`);
      sqlite.pragma('wal_autocheckpoint = 0');
      sqlite.pragma('synchronous = NORMAL');
    },
    beforeWriteBatch: () => checkpointer?.beforeWrite(),
    checkpointIdle: () => checkpointer?.whenIdle() ?? RESOLVED,
    walLogBytes: async () => walIndex?.logBytes(),
    async close() {
      // the last sync first; then the checkpoint thread's connection, so the main one closes last: SQLite then
      // checkpoints the whole log and removes the -wal file (a clean file on disk)
      await barrier?.close();
      await checkpointer?.close();
      watch.onStatement = undefined;
      await db.destroy();
      // last: closing it releases this process's locks on the -shm file (wal-index.ts)
      walIndex?.close();
      walIndex = undefined;
    },
  };
}

/** Applies every pending migration; safe to run from several instances at once (Kysely's migration lock). */
export async function migrateStore(store: Store): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema unless told which: pin it to the one we write to, or a
  // second deployment (or test) in another schema of the same database would be mistaken for this one.
  const schema =
    store.dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(store.db)).rows[0]?.s
      : undefined;
  const migrator = new Migrator({
    db: store.db,
    provider: migrationProvider(store.dialect),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** A connection string fit for logs and messages: its password replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable url)';
  }
}
