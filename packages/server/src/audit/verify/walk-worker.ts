/**
 * Worker thread of `/verify` on two cores (parallel-walk.ts): on its own read-only connection to the SQLite file,
 * checks the decision rows and walks the range of the log it is given, and posts what it found back. Entries, nodes
 * and decision records below the tip are write-once, so what this connection sees of them is what the main
 * thread's would.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../../store/index.ts';
import { checkDecisions } from '../record-checks/check-decisions.ts';
import { RecordFindings } from '../record-checks/record-findings.ts';
import { NodeRange } from './node-range.ts';
import type { WalkJob, WalkReply } from './parallel-walk.ts';
import { walkRange } from './walk-range.ts';

const job = workerData as WalkJob;
const db = new Kysely<Database>({
  dialect: new SqliteDialect({ database: new SQLite(job.file, { readonly: true, fileMustExist: true }) }),
});
try {
  const reply: Extract<WalkReply, { ok: true }> = { ok: true };
  const transfer: ArrayBuffer[] = [];
  if (job.decisions) {
    const findings = new RecordFindings(job.decisions.size, job.decisions.scope);
    await checkDecisions(db, findings, 2000, { after: job.decisions.after });
    reply.decisions = findings.decisionFindings();
    transfer.push(reply.decisions.anchored.buffer as ArrayBuffer);
  }
  if (job.chain) {
    const { chain } = job;
    const result = await walkRange(
      db,
      { index: chain.start, range: NodeRange.fromJSON(chain.frontier), prevLeafHash: chain.prevLeafHash },
      chain.end,
      { pageSize: job.pageSize, latest: chain.latest },
    );
    // after a failure the walk's range stopped inside an append: only a completed walk has a frontier to send
    reply.chain = {
      classes: result.classes,
      frontier: result.failure ? { size: 0, hashes: [] } : result.range.toJSON(),
      lastLeafHash: result.lastLeafHash,
      ...(result.failure ? { failure: result.failure } : {}),
    };
    transfer.push(result.classes.buffer as ArrayBuffer);
  }
  parentPort!.postMessage(reply, transfer);
} catch (error) {
  parentPort!.postMessage({ ok: false, error: (error as Error).message } satisfies WalkReply);
} finally {
  await db.destroy();
}
