/**
 * One HTTP POST of a delivery (CONTRACT section 9): redirects are never followed (a 3xx is a failure), at most
 * 64 KiB of the response is read (then the connection is dropped), and the whole exchange has a deadline (15 s).
 * Connections go through the endpoint's dispatcher, whose lookup is the SSRF guard's pinned lookup
 * (target-guard.ts), and the URL itself is checked again at every attempt (an IP literal skips DNS).
 * undici rather than node:http: a kept-alive connection pool per endpoint, and `connect.lookup` reaches
 * net/tls.connect unchanged, so the name stays the TLS SNI and Host while the socket goes to the checked address.
 * The deadline is one timer that destroys the dispatcher (an AbortSignal per attempt cost more than the rest of
 * the client's work): INVARIANT, the dispatcher carries this attempt only (the worker's pool for this endpoint,
 * whose attempts are made one at a time), and a destroyed one is replaced before the next attempt.
 */
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { isTargetRefusal, parseTarget } from './target-guard.ts';

export const DELIVERY_TIMEOUT_MS = 15_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface DeliveryRequest {
  url: string;
  body: Uint8Array;
  headers: Record<string, string>;
}

export interface DeliveryResponse {
  /** the HTTP status, or null when none arrived */
  status: number | null;
  retryAfter: string | undefined;
  durationMs: number;
  /** set when no status arrived, or the target was refused: `timeout`, `target_refused: loopback`, … */
  error: string | null;
  /** bytes of the response body read (at most MAX_RESPONSE_BYTES) */
  bytesRead: number;
}

export interface DeliverOptions {
  dispatcher: Dispatcher;
  allowInsecure: boolean;
  timeoutMs?: number;
}

export async function deliverAttempt(req: DeliveryRequest, options: DeliverOptions): Promise<DeliveryResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    checkUrl(req.url, options.allowInsecure);
  } catch (error) {
    const reason = isTargetRefusal(error) ? String(error.extra?.reason) : 'invalid_url';
    return { status: null, retryAfter: undefined, durationMs: 0, error: `target_refused: ${reason}`, bytesRead: 0 };
  }
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    options.dispatcher.destroy(new Error('timeout')).catch(() => undefined);
  }, options.timeoutMs ?? DELIVERY_TIMEOUT_MS);
  try {
    const res = await request(req.url, {
      method: 'POST',
      dispatcher: options.dispatcher,
      headers: req.headers,
      body: req.body,
    });
    const bytesRead = await readCapped(res.body);
    const retryAfter = res.headers['retry-after'];
    return {
      status: res.statusCode,
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      durationMs: elapsed(),
      error: null,
      bytesRead,
    };
  } catch (error) {
    return {
      status: null,
      retryAfter: undefined,
      durationMs: elapsed(),
      error: describe(error, timedOut),
      bytesRead: 0,
    };
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * URLs that passed parseTarget, per `allowInsecure`. parseTarget depends on its two arguments only (no DNS, no
 * clock), so a URL that passed once passes again: it is checked once per distinct URL instead of parsed at every
 * attempt (a WHATWG URL parse and the userinfo regex, a few us per attempt). A refused one is never kept (it throws
 * each time). Bounded: cleared when full.
 */
const checkedUrls = [new Set<string>(), new Set<string>()];
const CHECKED_URLS_MAX = 1_024;

function checkUrl(url: string, allowInsecure: boolean): void {
  const checked = checkedUrls[allowInsecure ? 1 : 0]!;
  if (checked.has(url)) return;
  parseTarget(url, allowInsecure);
  if (checked.size >= CHECKED_URLS_MAX) checked.clear();
  checked.add(url);
}

/**
 * Reads the response body to its end, or to MAX_RESPONSE_BYTES (then drops it, and with it the connection); resolves
 * with the bytes read (at most the cap). A body cut short or erroring (the deadline destroys the dispatcher, which
 * errors the body) ends the read too: the status decides. Listeners and one promise, not `for await`, whose async
 * iterator cost several promise turns per attempt for an empty body. Never rejects; the body is destroyed after.
 */
function readCapped(body: Readable): Promise<number> {
  return new Promise((resolve) => {
    let bytes = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      if (!body.destroyed) body.destroy();
      resolve(Math.min(bytes, MAX_RESPONSE_BYTES));
    };
    // destroyed before we got here (the deadline fired between the status line and now): its 'close' is gone
    if (body.destroyed) return finish();
    body.on('data', (chunk: Uint8Array) => {
      bytes += chunk.length;
      if (bytes >= MAX_RESPONSE_BYTES) finish();
    });
    body.on('end', finish);
    body.on('error', finish);
    body.on('close', finish);
  });
}

/** A short, secret-free description of a transport failure. */
function describe(error: unknown, timedOut: boolean): string {
  if (timedOut) return 'timeout';
  if (isTargetRefusal(error)) return `target_refused: ${String(error.extra?.reason)}`;
  const cause = (error as { cause?: unknown }).cause;
  if (isTargetRefusal(cause)) return `target_refused: ${String(cause.extra?.reason)}`;
  const code = (error as { code?: unknown }).code ?? (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `connection_failed: ${code}` : 'connection_failed';
}
