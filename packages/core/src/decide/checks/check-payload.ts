/**
 * Step 1: the agent's RFC 9421 signature was present, valid, fresh and not replayed (the server verified it and
 * records the facts), and the basket binding is consistent. Freshness is symmetric, inclusive and judged in whole
 * seconds (CONTRACT section 7): |floor(now) - created| > window is stale, exactly `window` either way is fresh,
 * whatever the fraction of the clock's second.
 * An invalid signature's detail names the `@target-uri` values the server verified against, so an integrator can see
 * that the agent signed for another URL (a proxy's internal address, another deployment).
 */
import { isNonNegativeSafeInteger, isRecord } from '../guards.ts';
import { fail, pass, type CheckContext, type CheckVerdict } from './check-context.ts';

export function checkPayload(ctx: CheckContext): CheckVerdict {
  const payload: unknown = ctx.snapshot.payload;
  if (!isRecord(payload)) return fail('payload_signature_missing', 'snapshot has no payload facts');
  if (payload.required !== false) {
    if (payload.present !== true) return fail('payload_signature_missing', 'request is not signed');
    if (payload.signature_valid !== true) return fail('payload_signature_invalid', invalidDetail(payload));
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
  // Whole seconds: `now.nanos` is ignored, so now - 300 and now + 300 are both fresh, now ± 301 both stale.
  const ahead = ctx.now.seconds - (created as number);
  if (ahead > window) return `created ${ahead}s before now, window ${window}s`;
  if (-ahead > window) return `created ${-ahead}s after now, window ${window}s`;
  return undefined;
}

const MAX_NAMED_URIS = 16;
const MAX_URI_LENGTH = 256;

/** `signature does not verify (<code>) for @target-uri `a` or `b``: the facts are hostile, so bounded. */
function invalidDetail(payload: Record<string, unknown>): string {
  let detail = 'signature does not verify';
  const failure = payload.signature_failure;
  if (typeof failure === 'string' && /^[a-z_]{1,40}$/.test(failure)) detail += ` (${failure})`;
  const uris = Array.isArray(payload.target_uris)
    ? payload.target_uris.filter((u): u is string => typeof u === 'string')
    : [];
  if (uris.length > 0) {
    const named = uris
      .slice(0, MAX_NAMED_URIS)
      .map((uri) => `\`${uri.length > MAX_URI_LENGTH ? `${uri.slice(0, MAX_URI_LENGTH - 3)}...` : uri}\``);
    detail += ` for @target-uri ${named.join(' or ')}`;
  }
  return detail;
}
