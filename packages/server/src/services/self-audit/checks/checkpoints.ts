import type { AppContext } from '../../../app-context.ts';
import { latestCheckpoint } from '../../../audit/checkpoints.ts';
import { CHECKPOINT_SIGNED } from '../../../workers/checkpoint-worker.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

/**
 * Entries are covered by a recent signed checkpoint. Every running `serve`/`audit-serve` signs one at least every
 * AAR_CHECKPOINT_INTERVAL seconds while entries arrive (CONTRACT section 8, workers/checkpoint-worker.ts).
 * INVARIANT (the scheduler's own): a scheduled checkpoint's announcement `ns.audit.checkpoint_signed` is written just
 * after the checkpoint it announces and is not an arrival, so on an idle log the last announcement stays uncovered
 * for ever. Only the other entries are measured: an arrival older than a few intervals without a checkpoint means no
 * scheduler covers this store; announcements alone, or arrivals younger than the threshold, are fine.
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
  const covered = checkpoint?.size ?? 0;
  const uncovered = size - covered;
  // the oldest uncovered arrival (index order is arrival order): how long it has waited
  const arrival = await db
    .selectFrom('audit_entries')
    .select(['idx', 'occurred_at'])
    .where('idx', '>=', covered)
    .where('idx', '<', size)
    .where('kind', '<>', CHECKPOINT_SIGNED)
    .orderBy('idx')
    .limit(1)
    .executeTakeFirst();
  evidence.uncovered_entries = uncovered;
  if (!arrival) {
    evidence.uncovered_arrivals = 0;
    return passed(
      'checkpoints_recent',
      `every entry but ${uncovered} checkpoint announcement(s) is covered by checkpoint ${covered}`,
      evidence,
    );
  }
  const arrivals = await db
    .selectFrom('audit_entries')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('idx', '>=', covered)
    .where('idx', '<', size)
    .where('kind', '<>', CHECKPOINT_SIGNED)
    .executeTakeFirstOrThrow();
  const waitingSince = arrival.occurred_at;
  const age = Math.floor((now - Date.parse(waitingSince)) / 1000);
  evidence.uncovered_arrivals = Number(arrivals.n);
  evidence.uncovered_since = waitingSince;
  evidence.uncovered_for_seconds = age;
  evidence.first_uncovered_index = Number(arrival.idx);
  // fail closed: an unreadable instant is not "recent"
  if (Number.isFinite(age) && age <= threshold) {
    return passed('checkpoints_recent', `${evidence.uncovered_arrivals} entries await the next checkpoint`, evidence);
  }
  return failed(
    'checkpoints_recent',
    'fail',
    `${evidence.uncovered_arrivals} audit entries have waited more than ${threshold} s for a signed checkpoint`,
    evidence,
    'No running server signed a checkpoint over these entries. Check that an `aar serve` or `aar audit-serve` ' +
      'runs against this store (a store written by a process that has stopped, or by a one-off command, is ' +
      'covered only when a server next runs); search its log for `scheduled checkpoint failed` (the error says ' +
      'why: an unreadable signing key, or 503 when the stored tree is not consistent with the latest checkpoint) ' +
      'and for `STARTING UNVERIFIED`; and check that AAR_CHECKPOINT_INTERVAL is what you expect. Then sign one with ' +
      'POST /v1/audit/checkpoint; if that answers 503, run `aar verify-audit` to find the entry that breaks the log.',
  );
}
