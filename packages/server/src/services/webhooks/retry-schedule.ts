/**
 * When to try again (CONTRACT section 9, the Standard Webhooks schedule): after a failed attempt n (1-9) the next
 * is due SCHEDULE[n-1] later; attempt 10 failing exhausts the delivery. `Retry-After` (429, 503) moves the next
 * attempt later, never earlier than the schedule, and never past the schedule's longest gap (24 h).
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** an endpoint whose deliveries have failed, without a success, for this long is disabled */
export const FAILING_DISABLE_MS = 5 * 24 * 3600 * 1000;
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** The delay before attempt `attempt + 1`, or null when `attempt` was the last. */
export function retryDelayMs(attempt: number, retryAfterMs: number | null): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const scheduled = RETRY_DELAYS_SECONDS[attempt - 1]! * 1000;
  return retryAfterMs === null ? scheduled : Math.max(scheduled, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/**
 * `Retry-After` (RFC 9110 section 10.2.3): whole seconds or an HTTP date; null when absent or malformed.
 * Attacker assumption: the receiver's header is arbitrary text.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
