import type { AppContext } from '../../../app-context.ts';
import { latestCheckpoint } from '../../../audit/checkpoints.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

/**
 * Entries are covered by a recent signed checkpoint. The service signs one at least every
 * AAR_CHECKPOINT_INTERVAL seconds while entries arrive (CONTRACT section 8), so entries older than a few intervals
 * without a checkpoint mean the scheduler is not running. An idle log with an old checkpoint is fine: nothing
 * arrived since.
 */
export function staleAfterSeconds(ctx: AppContext): number {
  return Math.max(60, 6 * ctx.config.checkpointIntervalSeconds);
}

export async function checkCheckpoints(ctx: AppContext): Promise<SelfAuditCheck> {
  const db = ctx.store.db;
  const checkpoint = await latestCheckpoint(db);
  const tip = await db.selectFrom('audit_state').select('size').where('id', '=', 1).executeTakeFirst();
  const size = Number(tip?.size ?? 0);
  const threshold = staleAfterSeconds(ctx);
  const now = ctx.clock.now().getTime();
  const evidence: Record<string, unknown> = {
    tree_size: size,
    checkpoint_size: checkpoint?.size ?? null,
    checkpoint_timestamp: checkpoint?.timestamp ?? null,
    stale_after_seconds: threshold,
  };
  if (size === 0) return passed('checkpoints_recent', 'the audit log is empty', evidence);
  if (checkpoint && checkpoint.size >= size) {
    return passed('checkpoints_recent', `every entry is covered by checkpoint ${checkpoint.size}`, evidence);
  }
  // the oldest entry not yet covered: how long it has waited
  const firstUncovered = checkpoint?.size ?? 0;
  const entry = await db
    .selectFrom('audit_entries')
    .select('occurred_at')
    .where('idx', '=', firstUncovered)
    .executeTakeFirst();
  const waitingSince = entry?.occurred_at ?? checkpoint?.timestamp ?? null;
  const age = waitingSince === null ? null : Math.floor((now - Date.parse(waitingSince)) / 1000);
  evidence.uncovered_entries = size - firstUncovered;
  evidence.uncovered_since = waitingSince;
  evidence.uncovered_for_seconds = age;
  if (age !== null && age <= threshold) {
    return passed('checkpoints_recent', `${size - firstUncovered} entries await the next checkpoint`, evidence);
  }
  return failed(
    'checkpoints_recent',
    'fail',
    `${size - firstUncovered} audit entries have waited more than ${threshold} s for a signed checkpoint`,
    evidence,
    'The checkpoint scheduler is not running: run the service with `aar serve` (it signs checkpoints every ' +
      'AAR_CHECKPOINT_INTERVAL seconds), or sign one now with POST /v1/audit/checkpoint.',
  );
}
