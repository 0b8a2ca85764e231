/**
 * A worker thread running a CommonJS script given as text (`eval: true`): no module to resolve, so it runs the same
 * from the sources, under tests and from dist/. Shared by the signing and delivery threads.
 * INVARIANTS: no inherited flags (`execArgv: []`: the script needs no loader such as tsx, nor --input-type); idle,
 * the thread never holds the process open: it is unref'd after the listeners are attached (attaching one refs it
 * again), and its owner refs it while work is pending.
 */
import { Worker } from 'node:worker_threads';

export interface EvalThreadHandlers<Reply> {
  message: (reply: Reply) => void;
  error: (error: Error) => void;
  exit: () => void;
}

export function startEvalThread<Reply>(source: string, on: EvalThreadHandlers<Reply>): Worker {
  const worker = new Worker(source, { eval: true, execArgv: [] });
  worker.on('message', on.message);
  worker.on('error', on.error);
  worker.on('exit', on.exit);
  worker.unref();
  return worker;
}
