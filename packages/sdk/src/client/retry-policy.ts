/**
 * When to send a request again, and after how long (CONTRACT section 18): 429 and 503 (the service refused before
 * doing anything: rate limit, audit chain unwritable) and network errors, with exponential backoff and full jitter
 * (AWS Architecture Blog, "Exponential Backoff And Jitter"); a `Retry-After` (delay-seconds or HTTP-date, RFC 9110
 * section 10.2.3) replaces the backoff, capped. Retrying a POST is safe only because every POST carries one
 * Idempotency-Key for all its attempts: the service replays the first answer instead of acting twice.
 */

export interface RetryOptions {
  /** attempts in all, the first included (default 4; 1 disables retries) */
  maxAttempts: number;
  /** the backoff's base: the n-th retry waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^n)) (default 250) */
  baseDelayMs: number;
  /** the backoff's ceiling (default 8000) */
  maxDelayMs: number;
  /** the most a `Retry-After` may make the client wait (default 60000); a longer one is waited this long */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export function resolveRetryOptions(options: Partial<RetryOptions> | undefined): RetryOptions {
  const merged = { ...DEFAULT_RETRY, ...options };
  for (const [name, value] of Object.entries(merged)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new TypeError(`retry.${name} must be a finite number >= 0`);
    }
  }
  if (!Number.isInteger(merged.maxAttempts) || merged.maxAttempts < 1) {
    throw new TypeError('retry.maxAttempts must be an integer >= 1');
  }
  return merged;
}

/** Full jitter: a uniformly random wait below the exponential ceiling of retry number `retry` (0 for the first). */
export function backoffDelayMs(retry: number, options: RetryOptions, random: () => number): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

const DELAY_SECONDS = /^\d{1,10}$/;

/**
 * `Retry-After` in milliseconds from `nowMs`; undefined when absent or unreadable (then the backoff applies).
 * A date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  // an HTTP-date (IMF-fixdate, or the obsolete forms Date.parse also reads); never a bare number of another form
  if (!/[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The wait before the next attempt: the service's `Retry-After` (capped) when it gave one, else the backoff. */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | undefined,
  options: RetryOptions,
  random: () => number,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxRetryAfterMs);
  return backoffDelayMs(retry, options, random);
}
