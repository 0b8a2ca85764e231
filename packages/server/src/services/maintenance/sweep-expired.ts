/**
 * Housekeeping: expired request nonces (a replay older than twice the signature window is refused as stale anyway),
 * and the announcement of approvals that lapsed undecided (`ns.approval.expired`, services/approvals/
 * expire-approvals.ts). Runs on a timer in `aar serve`; safe on several instances at once.
 */
import type { AppContext } from '../../app-context.ts';
import { expireApprovals } from '../approvals/expire-approvals.ts';

export const SWEEP_INTERVAL_MS = 60_000;

export async function sweepExpired(ctx: AppContext): Promise<{ nonces: number }> {
  const now = ctx.clock.now().toISOString();
  const result = await ctx.store.db.deleteFrom('request_nonces').where('expires_at', '<', now).executeTakeFirst();
  return { nonces: Number(result.numDeletedRows ?? 0n) };
}

/** Starts the timer; the returned function stops it. The timer never keeps the process alive. */
export function startSweeping(ctx: AppContext, onError: (error: unknown) => void): () => void {
  const timer = setInterval(() => {
    sweepExpired(ctx).catch(onError);
    expireApprovals(ctx).catch(onError);
  }, SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
