/**
 * Worker thread of the parallel walk (parallel-walk.ts): walks one range of the log on its own read-only connection
 * to the SQLite file, and posts the result back. Entries and nodes below the tip are write-once, so what this
 * connection sees of the range is what the main thread's would.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../../store/index.ts';
import { NodeRange } from './node-range.ts';
import type { WalkJob, WalkReply } from './parallel-walk.ts';
import { walkRange } from './walk-range.ts';

const job = workerData as WalkJob;
const db = new Kysely<Database>({
  dialect: new SqliteDialect({ database: new SQLite(job.file, { readonly: true, fileMustExist: true }) }),
});
try {
  const result = await walkRange(
    db,
    { index: job.start, range: NodeRange.fromJSON(job.frontier), prevLeafHash: job.prevLeafHash },
    job.end,
    { pageSize: job.pageSize, latest: job.latest },
  );
  const reply: WalkReply = {
    ok: true,
    classes: result.classes,
    frontier: result.range.toJSON(),
    lastLeafHash: result.lastLeafHash,
    ...(result.failure ? { failure: result.failure } : {}),
  };
  parentPort!.postMessage(reply, [result.classes.buffer as ArrayBuffer]);
} catch (error) {
  parentPort!.postMessage({ ok: false, error: (error as Error).message } satisfies WalkReply);
} finally {
  await db.destroy();
}
