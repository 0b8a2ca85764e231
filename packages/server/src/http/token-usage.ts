/**
 * Records when API tokens are used, for the self-audit's "tokens unused for 90 days" check (migration 0012). Day
 * precision is all that check needs, so each instance writes a token's use once per UTC day: the first request of
 * the day pays one small upsert, every other request nothing (an in-memory note of the day last written).
 * Best effort by design: a failed write never fails the request it belongs to (the token was valid); the cost is
 * that the self-audit may call a token unused that was used on a day whose write failed, which only ever leads to
 * a suggestion to revoke it. The map is bounded by the number of live tokens.
 */
import type { AppContext } from '../app-context.ts';

export class TokenUsage {
  readonly #ctx: AppContext;
  readonly #writtenDay = new Map<string, string>();

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** undefined when the day's use is written already (every request but the day's first): nothing to wait for */
  note(tokenId: string): Promise<void> | undefined {
    const now = this.#ctx.clock.now().toISOString();
    const day = now.slice(0, 10);
    if (this.#writtenDay.get(tokenId) === day) return undefined;
    return this.#write(tokenId, now, day);
  }

  async #write(tokenId: string, now: string, day: string): Promise<void> {
    try {
      await this.#ctx.store.db
        .insertInto('api_token_usage')
        .values({ token_id: tokenId, last_used_at: now })
        .onConflict((oc) => oc.column('token_id').doUpdateSet({ last_used_at: now }))
        .execute();
      this.#writtenDay.set(tokenId, day);
    } catch {
      // best effort (see above); the next request of the day tries again
    }
  }
}
