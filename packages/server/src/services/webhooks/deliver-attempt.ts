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
    parseTarget(req.url, options.allowInsecure);
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
    let bytesRead = 0;
    try {
      for await (const chunk of res.body) {
        bytesRead += (chunk as Uint8Array).length;
        if (bytesRead >= MAX_RESPONSE_BYTES) {
          bytesRead = MAX_RESPONSE_BYTES;
          break;
        }
      }
    } catch {
      // a body cut short or timing out after the status line: the status decides
    } finally {
      if (!res.body.destroyed) res.body.destroy();
    }
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

/** A short, secret-free description of a transport failure. */
function describe(error: unknown, timedOut: boolean): string {
  if (timedOut) return 'timeout';
  if (isTargetRefusal(error)) return `target_refused: ${String(error.extra?.reason)}`;
  const cause = (error as { cause?: unknown }).cause;
  if (isTargetRefusal(cause)) return `target_refused: ${String(cause.extra?.reason)}`;
  const code = (error as { code?: unknown }).code ?? (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `connection_failed: ${code}` : 'connection_failed';
}
