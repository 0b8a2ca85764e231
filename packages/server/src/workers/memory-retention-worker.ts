/**
 * The memory retention worker (CONTRACT section 22, docs/memory.md): every interval, purges the content of memory
 * records whose retention has ended, leaving chained tombstones (services/memory/purge-expired-memory.ts). Runs only
 * when the deployment enables `memory` (AAR_OPT_IN); otherwise starting it does nothing.
 * Ticks never overlap and never keep the process alive; stopping resolves once a tick in flight has finished.
 */
import type { AppContext } from '../app-context.ts';
import { PURGE_BATCH, purgeExpiredMemory } from '../services/memory/purge-expired-memory.ts';

export interface MemoryRetentionWorkerOptions {
  /** default one minute */
  intervalMs?: number;
  onPurged?: (ids: string[]) => void;
  onError: (error: unknown) => void;
}

export function startMemoryRetentionWorker(
  ctx: AppContext,
  options: MemoryRetentionWorkerOptions,
): () => Promise<void> {
  if (!ctx.config.optIn.has('memory')) return async () => {};
  const intervalMs = options.intervalMs ?? 60_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = async (): Promise<void> => {
    try {
      // drain what is due, a batch at a time, unless told to stop
      for (;;) {
        const ids = await purgeExpiredMemory(ctx, PURGE_BATCH);
        if (ids.length > 0) options.onPurged?.(ids);
        if (ids.length < PURGE_BATCH || stopped) break;
      }
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
