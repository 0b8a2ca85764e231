/**
 * `/verify` on two cores (issue 10): on a SQLite file, a worker thread (walk-worker.ts), on its own read-only
 * connection, walks the upper half of the entries [mid, end) and checks the upper half of the decision rows (by
 * `seq`), while this thread checks the other records and the lower halves. Every part is checked exactly as on one
 * thread; this thread merges the findings (record-checks/record-findings.ts) and the walks in index order.
 * The worker's walk starts from the stored frontier at `mid` and the stored leaf hash of `mid - 1`. Trusting them
 * costs nothing: this thread's walk checks each of those nodes (each is completed by a leaf below `mid`) and that
 * leaf hash, so if one was forged, the first failure is below `mid` and is the one answered.
 * Anything else (PostgreSQL, an in-memory store, little to check, a worker that cannot start or fails) runs on this
 * thread, so the answer never depends on the worker being there.
 */
import { Worker } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import type { DecisionFindings, RecordScope } from '../record-checks/record-findings.ts';
import { readStoredNodes } from '../stored-node-reader.ts';
import { NodeRange } from './node-range.ts';
import type { WalkFailure, WalkResult, WalkStart } from './walk-range.ts';

/** What the worker does: the upper part of the chain, the upper part of the decision rows, or both. */
export interface WalkJob {
  file: string;
  pageSize: number;
  chain?: {
    start: number;
    end: number;
    frontier: { size: number; hashes: string[] };
    prevLeafHash: string;
    latest: { size: number; root_hash: string } | null;
  };
  /** the decision rows with `seq` > `after`, checked against the log of `size` entries in `scope` */
  decisions?: { size: number; scope: RecordScope; after: number };
}

export type WalkReply =
  | {
      ok: true;
      chain?: {
        classes: Uint8Array;
        frontier: { size: number; hashes: string[] };
        lastLeafHash: string;
        failure?: WalkFailure;
      };
      decisions?: DecisionFindings;
    }
  | { ok: false; error: string };

export interface WorkerAnswer {
  chain?: WalkResult;
  decisions?: DecisionFindings;
}

/** Counts of this process's worker runs (tests and operators see whether the second core was used). */
export const workerWalks = { completed: 0, failed: 0 };

// CPU per entry walked and per decision row checked, about (bench/README.md "Profile: audit verify"): below a second
// of work a worker thread's start costs more than it saves
const ENTRY_MICROS = 5;
const DECISION_MICROS = 40;
const PARALLEL_MIN_MICROS = 1_000_000;

export interface ParallelPlan {
  /** where the worker's walk starts; undefined: this thread walks the whole range */
  chain?: WalkStart;
  /** this thread checks the decision rows through this `seq`, the worker those after it */
  decisionsThrough?: number;
}

/**
 * How to share the work, or undefined to do it all on this thread. `minEntries` (tests) forces a split from that
 * many entries on, whatever the estimate.
 */
export async function parallelPlan(
  ctx: AppContext,
  start: WalkStart,
  size: number,
  scope: RecordScope,
  minEntries?: number,
): Promise<ParallelPlan | undefined> {
  if (ctx.store.dialect !== 'sqlite' || ctx.store.location === ':memory:') return undefined;
  const db = ctx.store.db;
  const entries = size - start.index;
  const top = await db
    .selectFrom('decisions')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  const decisions = Math.max(0, Number(top?.seq ?? 0) - scope.after.decisions);
  const work = entries * ENTRY_MICROS + decisions * DECISION_MICROS;
  if (minEntries === undefined ? work < PARALLEL_MIN_MICROS : entries < minEntries) return undefined;
  const mid = start.index + Math.floor(entries / 2);
  const chain = mid > start.index ? await storedStart(db, mid) : undefined;
  const decisionsThrough = decisions >= 2 ? scope.after.decisions + Math.floor(decisions / 2) : undefined;
  if (!chain && decisionsThrough === undefined) return undefined;
  return { ...(chain ? { chain } : {}), ...(decisionsThrough === undefined ? {} : { decisionsThrough }) };
}

/**
 * Where a walk of [mid, …) starts, from the stored nodes: undefined when they do not hold it (a node missing), in
 * which case the caller walks on one thread, which names the missing node.
 */
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

export interface WorkerRun {
  /** rejects if the worker cannot start, throws or exits early */
  answer: Promise<WorkerAnswer>;
  /** stops the worker when its answer is no longer needed */
  stop(): void;
}

/** Runs a job in a worker thread. */
export function runInWorker(job: WalkJob): WorkerRun {
  let worker: Worker | undefined;
  const answer = new Promise<WorkerAnswer>((resolve, reject) => {
    try {
      worker = new Worker(workerModule(), { workerData: job });
    } catch (error) {
      reject(error as Error);
      return;
    }
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      workerWalks.failed += 1;
      reject(error);
    };
    worker.once('message', (reply: WalkReply) => {
      if (!reply.ok) {
        fail(new Error(`audit walk worker: ${reply.error}`));
        return;
      }
      let parsed: WorkerAnswer;
      try {
        parsed = workerAnswer(reply);
      } catch (error) {
        fail(error as Error);
        return;
      }
      settled = true;
      workerWalks.completed += 1;
      resolve(parsed);
    });
    worker.once('error', fail);
    worker.once('exit', (code) => fail(new Error(`audit walk worker exited with ${code} before answering`)));
  });
  answer.catch(() => undefined); // the caller awaits it only when it needs the answer
  return { answer, stop: () => void worker?.terminate() };
}

function workerAnswer(reply: Extract<WalkReply, { ok: true }>): WorkerAnswer {
  const chain = reply.chain;
  return {
    ...(chain
      ? {
          chain: {
            classes: chain.classes,
            range: NodeRange.fromJSON(chain.frontier),
            lastLeafHash: chain.lastLeafHash,
            ...(chain.failure ? { failure: chain.failure } : {}),
          },
        }
      : {}),
    ...(reply.decisions ? { decisions: reply.decisions } : {}),
  };
}
