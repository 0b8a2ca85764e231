/**
 * The report worker of `aar serve` (docs/reports.md "Generation: once per period"): every `intervalMs` (default
 * 30 s) it generates the reports whose period has ended (services/reports/scheduled-reports.ts), each stored with
 * its `ns.report.generated` in one transaction, so the webhook worker delivers it through the outbox.
 * Several instances on one database may all run it: a period is stored once whatever the race (the schedule row is
 * taken `FOR UPDATE SKIP LOCKED` on PostgreSQL and its cursor checked in the storing unit). Runs only when the
 * deployment enabled the `reports` capability (AAR_OPT_IN): a deployment without it has no schedules to serve.
 */
import type { AppContext } from '../app-context.ts';
import { generateDueReports, type GeneratedReport } from '../services/reports/scheduled-reports.ts';

export const DEFAULT_REPORT_INTERVAL_MS = 30_000;

export interface ReportWorkerOptions {
  intervalMs?: number;
  onGenerated?: (report: GeneratedReport) => void;
  onError: (error: unknown) => void;
}

/**
 * Starts the worker; the returned function stops it and resolves once a tick in flight has finished (so the store
 * can close after it). Ticks never overlap and never keep the process alive.
 */
export function startReportWorker(ctx: AppContext, options: ReportWorkerOptions): () => Promise<void> {
  // off unless enabled: a deployment without the capability serves no schedules (and the routes refuse them)
  if (!ctx.config.optIn.has('reports')) return () => Promise.resolve();
  const intervalMs = options.intervalMs ?? DEFAULT_REPORT_INTERVAL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = async (): Promise<void> => {
    try {
      for (const report of await generateDueReports(ctx)) options.onGenerated?.(report);
    } catch (error) {
      options.onError(error);
    }
    schedule();
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = tick();
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await inFlight;
  };
}
