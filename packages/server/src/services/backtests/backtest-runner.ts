/**
 * The in-process scheduler of backtest jobs (run-backtest.ts), one per app: bounded (one job runs at a time; the
 * others wait in order), stopped when the app closes (the job ends after its page, its state kept in the row).
 * Resumable: a `running` backtest that no instance is moving (its row unchanged for STALE_MS) is taken over by the
 * instance that reads it (`GET /v1/backtests/{id}` or `resumeBacktests`), from its stored cursor. Two instances may
 * both take one over after a crash; both compute the same report and only the first to finish completes it.
 */
import type { AppContext } from '../../app-context.ts';
import { runBacktest, type BacktestRow } from './run-backtest.ts';

/** a running backtest whose row has not moved for this long has no live job: resume it here */
export const STALE_MS = 30_000;

interface Runner {
  queue: string[];
  active: Set<string>;
  running: Promise<void> | null;
  stopped: boolean;
}

const runners = new WeakMap<AppContext, Runner>();

function runnerOf(ctx: AppContext): Runner {
  let runner = runners.get(ctx);
  if (!runner) {
    runner = { queue: [], active: new Set(), running: null, stopped: false };
    runners.set(ctx, runner);
  }
  return runner;
}

/** Queues the backtest's job on this instance (once). */
export function scheduleBacktest(ctx: AppContext, backtestId: string): void {
  const runner = runnerOf(ctx);
  if (runner.stopped || runner.active.has(backtestId)) return;
  runner.active.add(backtestId);
  runner.queue.push(backtestId);
  if (!runner.running) runner.running = drain(ctx, runner);
}

/** Whether this instance runs (or will run) the backtest's job. */
export function isScheduled(ctx: AppContext, backtestId: string): boolean {
  return runners.get(ctx)?.active.has(backtestId) ?? false;
}

async function drain(ctx: AppContext, runner: Runner): Promise<void> {
  try {
    for (let id = runner.queue.shift(); id !== undefined && !runner.stopped; id = runner.queue.shift()) {
      try {
        const row = await ctx.store.db
          .selectFrom('backtests')
          .select(['backtest_id', 'pack_name', 'version', 'params', 'result', 'done_count', 'total_count', 'state'])
          .where('backtest_id', '=', id)
          .executeTakeFirst();
        if (row?.state === 'running') await runBacktest(ctx, row as BacktestRow, { stopped: () => runner.stopped });
      } catch {
        // the store failed under the job (closing, or unreachable): the row stays `running` with its last page's
        // state, and a later read resumes it (STALE_MS)
      } finally {
        runner.active.delete(id);
      }
    }
  } finally {
    runner.running = null;
  }
}

/** Stops this instance's jobs (app close); resolves once the current page is over. */
export async function stopBacktests(ctx: AppContext): Promise<void> {
  const runner = runners.get(ctx);
  if (!runner) return;
  runner.stopped = true;
  runner.queue.length = 0;
  await runner.running;
}

/** Takes over every running backtest no instance has moved for STALE_MS (at start, or on demand). */
export async function resumeBacktests(ctx: AppContext): Promise<number> {
  const staleBefore = new Date(ctx.clock.now().getTime() - STALE_MS).toISOString();
  const rows = await ctx.store.db
    .selectFrom('backtests')
    .select('backtest_id')
    .where('state', '=', 'running')
    .where('updated_at', '<', staleBefore)
    .orderBy('seq')
    .execute();
  for (const row of rows) scheduleBacktest(ctx, row.backtest_id);
  return rows.length;
}
