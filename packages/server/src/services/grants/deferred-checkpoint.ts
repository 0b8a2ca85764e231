/**
 * SQLite's WAL is checkpointed automatically by the connection that commits once the log passes
 * `wal_autocheckpoint` pages: a 100k-grant cascade (~100 MB of log) would copy all of it back into the database
 * file inside its own commit, before it can answer. A large cascade therefore suspends the automatic checkpoint for
 * the batch that carries it, and runs a passive checkpoint right after its answer instead. Durability is unchanged:
 * a committed WAL frame is as durable as a checkpointed page. No-op on PostgreSQL.
 * INVARIANT: the previous setting is restored whatever happens (`restore` runs in a finally).
 * Once the store runs its own checkpoint thread (store/wal-checkpointer.ts: automatic checkpoints are 0 on the main
 * connection, and the thread copies the log back off the event loop after the cascade's sync), there is nothing to
 * suspend or defer, and this does nothing.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';

const CHECKPOINT_DELAY_MS = 100;

export interface DeferredCheckpoint {
  /** inside the write unit: suspend automatic checkpoints until `restore` */
  suspend(trx: Transaction<Database>): Promise<void>;
  /** after the unit settled: restore the setting; checkpoint once the caller has answered */
  restore(db: Kysely<Database>): Promise<void>;
}

export function deferredCheckpoint(enabled: boolean): DeferredCheckpoint {
  let saved: number | undefined;
  return {
    async suspend(trx) {
      if (!enabled || saved !== undefined) return;
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(trx);
      const current = Number(rows[0]?.wal_autocheckpoint ?? 1000);
      if (current <= 0) return; // the checkpoint thread's store: nothing to defer
      saved = current;
      await sql`pragma wal_autocheckpoint = 0`.execute(trx);
    },
    async restore(db) {
      if (saved === undefined) return;
      const pages = saved;
      saved = undefined;
      await sql.raw(`pragma wal_autocheckpoint = ${Math.trunc(pages)}`).execute(db);
      // later than the answer: it blocks the event loop while it copies the log (the handler resolved first)
      setTimeout(
        () => void sql`pragma wal_checkpoint(passive)`.execute(db).catch(() => undefined),
        CHECKPOINT_DELAY_MS,
      );
    },
  };
}
