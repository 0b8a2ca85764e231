import type { AppContext } from '../../../app-context.ts';
import { listTokenLastUse } from '../../tokens/list-token-last-use.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

export const UNUSED_TOKEN_DAYS = 90;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Live API tokens not used for 90 days (never used: counted from creation). A credential nobody uses is one nobody
 * watches: revoke it. Token ids and roles only, never a secret or its hash.
 */
export async function checkUnusedTokens(ctx: AppContext): Promise<SelfAuditCheck> {
  const now = ctx.clock.now().getTime();
  const tokens = await listTokenLastUse(ctx);
  const unused = tokens
    .map((t) => {
      const since = t.last_used_at ?? t.created_at;
      return { ...t, idle_days: Math.floor((now - Date.parse(since)) / DAY_MS) };
    })
    .filter((t) => t.idle_days >= UNUSED_TOKEN_DAYS)
    .map((t) => ({ token_id: t.token_id, role: t.role, last_used_at: t.last_used_at, idle_days: t.idle_days }));
  const evidence = { live_tokens: tokens.length, threshold_days: UNUSED_TOKEN_DAYS, unused };
  if (unused.length === 0) {
    return passed('tokens_unused_90_days', `all ${tokens.length} live tokens were used in the last 90 days`, evidence);
  }
  return failed(
    'tokens_unused_90_days',
    'fail',
    `${unused.length} live tokens were not used for ${UNUSED_TOKEN_DAYS} days or more`,
    evidence,
    'Revoke each token named in `unused` that nobody needs (`aar tokens revoke <token_id>` or ' +
      'DELETE /v1/tokens/{id}); issue a new one when it is needed again.',
  );
}
