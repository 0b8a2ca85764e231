/**
 * The chain walk on two cores (issue 10): on a SQLite file, the entries [mid, end) are walked by a worker thread
 * (walk-worker.ts) on its own read-only connection while this thread checks the records and walks [from, mid).
 * The worker starts from the stored frontier at `mid` and the stored leaf hash of `mid - 1`. Trusting them costs
 * nothing: this thread's walk checks each of those nodes (each is completed by a leaf below `mid`) and that leaf
 * hash, so if one was forged, the first failure is below `mid` and is the one answered.
 * Anything else (PostgreSQL, an in-memory store, a small range, a worker that cannot start or fails) walks on this
 * thread, so the answer never depends on the worker being there.
 */
import { Worker } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { readStoredNodes } from '../stored-node-reader.ts';
import { NodeRange } from './node-range.ts';
import type { WalkFailure, WalkResult, WalkStart } from './walk-range.ts';

export interface WalkJob {
  file: string;
  start: number;
  end: number;
  frontier: { size: number; hashes: string[] };
  prevLeafHash: string;
  pageSize: number;
  latest: { size: number; root_hash: string } | null;
}

export type WalkReply =
  | {
      ok: true;
      classes: Uint8Array;
      frontier: { size: number; hashes: string[] };
      lastLeafHash: string;
      failure?: WalkFailure;
    }
  | { ok: false; error: string };

/**
 * Where a walk of [mid, …) starts, from the stored nodes: undefined when they do not hold it (a node missing), in
 * which case the caller walks on one thread, which names the missing node.
 */
/** Counts of this process's worker walks (tests and operators see whether the second core was used). */
export const workerWalks = { completed: 0, failed: 0 };

export async function storedStart(db: Kysely<Database>, mid: number): Promise<WalkStart | undefined> {
  const subtrees: Array<{ begin: number; end: number }> = [];
  for (let begin = 0, width = 2 ** Math.floor(Math.log2(mid)); width >= 1; width /= 2) {
    if (mid - begin >= width) {
      subtrees.push({ begin, end: begin + width });
      begin += width;
    }
  }
  try {
    const nodes = await readStoredNodes(db, subtrees, mid);
    const hashes = subtrees.map((r) => Buffer.from(nodes.perfectSubtreeHash(r.begin, r.end)).toString('base64'));
    const last = await db
      .selectFrom('audit_entries')
      .select('leaf_hash')
      .where('idx', '=', mid - 1)
      .executeTakeFirst();
    if (!last) return undefined;
    return { index: mid, range: NodeRange.fromJSON({ size: mid, hashes }), prevLeafHash: last.leaf_hash };
  } catch {
    return undefined;
  }
}

/** The worker's module, beside this one: the build's, or the sources' through tsx (walk-worker-source.mjs). */
function workerModule(): URL {
  return new URL(import.meta.url.endsWith('.ts') ? './walk-worker-source.mjs' : './walk-worker.js', import.meta.url);
}

export interface WorkerWalk {
  /** rejects if the worker cannot start, throws or exits early */
  result: Promise<WalkResult>;
  /** stops the worker when its answer is no longer needed (the lower half failed first) */
  stop(): void;
}

/** Walks [start.index, end) in a worker thread. */
export function walkInWorker(job: WalkJob): WorkerWalk {
  let worker: Worker | undefined;
  const result = new Promise<WalkResult>((resolve, reject) => {
    try {
      worker = new Worker(workerModule(), { workerData: job });
    } catch (error) {
      reject(error as Error);
      return;
    }
    let settled = false;
    worker.once('message', (reply: WalkReply) => {
      settled = true;
      if (!reply.ok) {
        workerWalks.failed += 1;
        reject(new Error(`audit walk worker: ${reply.error}`));
        return;
      }
      workerWalks.completed += 1;
      resolve({
        classes: reply.classes,
        range: NodeRange.fromJSON(reply.frontier),
        lastLeafHash: reply.lastLeafHash,
        ...(reply.failure ? { failure: reply.failure } : {}),
      });
    });
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      workerWalks.failed += 1;
      reject(error);
    };
    worker.once('error', fail);
    worker.once('exit', (code) => fail(new Error(`audit walk worker exited with ${code} before answering`)));
  });
  result.catch(() => undefined); // the caller awaits it only when it needs the answer
  return { result, stop: () => void worker?.terminate() };
}
