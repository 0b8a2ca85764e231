/**
 * Scheduled checkpoints (CONTRACT section 8): while entries arrive, a checkpoint is signed at least every
 * `AAR_CHECKPOINT_INTERVAL` seconds (default 10), so the window in which a rewritten log could go unnoticed by
 * anyone holding a checkpoint stays that short. Each one is announced by `ns.audit.checkpoint_signed`
 * (`data: { origin, size, root_hash }`), written in the same unit as the checkpoint.
 * INVARIANT: only entries other than `ns.audit.checkpoint_signed` count as arrivals, so an idle log stays idle
 * instead of growing by one entry per interval.
 * Several instances on one database may all run this: each tick is a write-queue unit, so the tip row lock orders
 * them (PostgreSQL), and checkpoints are one per size, write-once, each consistent with the one before
 * (audit/checkpoints.ts): the second instance sees the first one's checkpoint and signs nothing.
 */
import type { AppContext } from '../app-context.ts';
import { auditOrigin } from '../audit/audit-origin.ts';
import { latestCheckpoint, signCheckpointIn, type SignedCheckpoint } from '../audit/checkpoints.ts';
import { appendEvent } from '../services/events/append-event.ts';
import { auditOf } from '../store/write-queue.ts';

export const CHECKPOINT_SIGNED = 'ns.audit.checkpoint_signed';

/** One tick: signs a checkpoint when entries other than checkpoint announcements arrived since the latest one. */
export async function signScheduledCheckpoint(ctx: AppContext): Promise<SignedCheckpoint | null> {
  const origin = await auditOrigin(ctx);
  return ctx.writer.run(async (trx) => {
    const appender = auditOf(trx);
    await appender.settle();
    const size = appender.size;
    if (size === 0) return null;
    const since = (await latestCheckpoint(trx))?.size ?? 0;
    const arrived = await trx
      .selectFrom('audit_entries')
      .select('idx')
      .where('idx', '>=', since)
      .where('idx', '<', size)
      .where('kind', '<>', CHECKPOINT_SIGNED)
      .limit(1)
      .executeTakeFirst();
    if (!arrived) return null;
    const { checkpoint, signed } = await signCheckpointIn(trx, ctx, origin);
    if (!signed) return null;
    await appendEvent(trx, ctx, {
      event_type: CHECKPOINT_SIGNED,
      actor_entity_id: null,
      principal_entity_id: null,
      subject_ref: `ns:checkpoint:${checkpoint.size}`,
      reason_code: 'checkpoint_signed',
      data: { origin: checkpoint.origin, size: checkpoint.size, root_hash: checkpoint.root_hash },
    });
    return checkpoint;
  });
}

export interface CheckpointWorkerOptions {
  /** default: the configured interval */
  intervalMs?: number;
  onSigned?: (checkpoint: SignedCheckpoint) => void;
  onError: (error: unknown) => void;
}

/**
 * Starts the schedule; the returned function stops it and resolves once a tick in flight has finished (so the store
 * can close after it). Ticks never overlap and never keep the process alive.
 */
export function startCheckpointWorker(ctx: AppContext, options: CheckpointWorkerOptions): () => Promise<void> {
  const intervalMs = options.intervalMs ?? ctx.config.checkpointIntervalSeconds * 1000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = async (): Promise<void> => {
    try {
      const checkpoint = await signScheduledCheckpoint(ctx);
      if (checkpoint) options.onSigned?.(checkpoint);
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
