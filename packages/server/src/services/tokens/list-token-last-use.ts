import type { AppContext } from '../../app-context.ts';

export interface TokenLastUse {
  token_id: string;
  role: string;
  created_at: string;
  /** null when never used since usage was recorded (migration 0012) */
  last_used_at: string | null;
}

/** Every live (unrevoked) token with when it was last used (http/token-usage.ts records it, day precision). */
export async function listTokenLastUse(ctx: AppContext): Promise<TokenLastUse[]> {
  return ctx.store.db
    .selectFrom('api_tokens')
    .leftJoin('api_token_usage', 'api_token_usage.token_id', 'api_tokens.token_id')
    .select(['api_tokens.token_id', 'api_tokens.role', 'api_tokens.created_at', 'api_token_usage.last_used_at'])
    .where('api_tokens.revoked_at', 'is', null)
    .orderBy('api_tokens.seq')
    .execute();
}
