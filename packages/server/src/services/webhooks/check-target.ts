import type { AppContext } from '../../app-context.ts';
import { parseTarget, resolveTarget, systemResolver } from './target-guard.ts';

/**
 * The registration-time check of a webhook URL (CONTRACT section 9): scheme, userinfo, IP literal, and every
 * address its name resolves to now. Delivery checks again at every connection (DNS can change).
 */
export async function checkTargetAtRegistration(ctx: AppContext, url: string): Promise<void> {
  const allowInsecure = ctx.config.webhookAllowInsecure;
  const target = parseTarget(url, allowInsecure);
  if (!allowInsecure) await resolveTarget(target, ctx.resolveHost ?? systemResolver, false);
}
