/**
 * Step 1: the agent's RFC 9421 signature was present, valid, fresh and not replayed (the server verified it and
 * records the facts), and the basket binding is consistent. Freshness is symmetric: |now - created| > window is
 * stale, exactly `window` is fresh.
 */
import { isNonNegativeSafeInteger, isRecord } from '../guards.ts';
import { fail, pass, type CheckContext, type CheckVerdict } from './check-context.ts';

export function checkPayload(ctx: CheckContext): CheckVerdict {
  const payload: unknown = ctx.snapshot.payload;
  if (!isRecord(payload)) return fail('payload_signature_missing', 'snapshot has no payload facts');
  if (payload.required !== false) {
    if (payload.present !== true) return fail('payload_signature_missing', 'request is not signed');
    if (payload.signature_valid !== true) return fail('payload_signature_invalid', 'signature does not verify');
    const stale = findStaleness(payload.created, payload.window_seconds, ctx);
    if (stale) return fail('payload_stale', stale);
    if (payload.nonce_fresh !== true) return fail('payload_replayed', 'nonce was already used within the window');
  }
  if (ctx.basket.problem) return fail('payload_signature_invalid', ctx.basket.problem);
  if (payload.required === false) {
    return ctx.basket.hash
      ? pass('signature not required; basket hash bound')
      : { outcome: 'skip', detail: 'signature not required' };
  }
  return pass();
}

function findStaleness(created: unknown, window: unknown, ctx: CheckContext): string | undefined {
  if (!ctx.now) return '`now` is not a valid timestamp';
  if (!Number.isSafeInteger(created)) return 'signature has no integer `created` time';
  if (!isNonNegativeSafeInteger(window)) return 'freshness window is not a non-negative integer';
  // now = seconds + nanos/1e9; with integer created and window, both directions reduce to integer comparisons.
  const ahead = ctx.now.seconds - (created as number);
  if (ahead > window || (ahead === window && ctx.now.nanos > 0))
    return `created ${ahead}s before now, window ${window}s`;
  if (-ahead > window) return `created ${-ahead}s after now, window ${window}s`;
  return undefined;
}
