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
 * The exchange goes through undici's `dispatch` with a handler rather than `request()`: the answer's body is only
 * counted, never consumed as a stream, and `request()`'s Readable body, its listeners and promise turns cost more
 * than the rest of the exchange (~70 against ~40 us per POST to a loopback receiver, bench/README.md, issue 9).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
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

export function deliverAttempt(req: DeliveryRequest, options: DeliverOptions): Promise<DeliveryResponse> {
  let target: Target;
  try {
    target = checkUrl(req.url, options.allowInsecure);
  } catch (error) {
    const reason = isTargetRefusal(error) ? String(error.extra?.reason) : 'invalid_url';
    return Promise.resolve({
      status: null,
      retryAfter: undefined,
      durationMs: 0,
      error: `target_refused: ${reason}`,
      bytesRead: 0,
    });
  }
  return new Promise((resolve) => {
    const exchange = new Exchange(options.dispatcher, resolve);
    exchange.deadline = setTimeout(onDeadline, options.timeoutMs ?? DELIVERY_TIMEOUT_MS, exchange);
    // a dispatcher that throws instead of calling the handler (never seen from undici) is a failed attempt too
    try {
      options.dispatcher.dispatch(
        { origin: target.origin, path: target.path, method: 'POST', headers: req.headers, body: req.body },
        exchange,
      );
    } catch (error) {
      exchange.onResponseError(null, error as Error);
    }
  });
}

/** Raised into the exchange to drop the connection once MAX_RESPONSE_BYTES were read; never leaves this file. */
const CAP_REACHED = new Error('response cap reached');

function onDeadline(exchange: Exchange): void {
  exchange.timedOut = true;
  exchange.dispatcher.destroy(new Error('timeout')).catch(() => undefined);
}

/**
 * One POST's handler (undici's dispatch API) and its outcome: settles once, when the answer's body ended, or was cut
 * at MAX_RESPONSE_BYTES (the request is then aborted, and with it the connection), or failed: after the status
 * arrived (a body cut short, the deadline destroying the dispatcher) the status decides; before, the failure is
 * described. A class rather than closures: its methods are shared, so an attempt allocates one object.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly dispatcher: Dispatcher;
  readonly #resolve: (response: DeliveryResponse) => void;
  readonly #started = performance.now();
  deadline: ReturnType<typeof setTimeout> | undefined;
  timedOut = false;
  #status: number | null = null;
  #retryAfter: string | undefined;
  #bytes = 0;
  #settled = false;

  constructor(dispatcher: Dispatcher, resolve: (response: DeliveryResponse) => void) {
    this.dispatcher = dispatcher;
    this.#resolve = resolve;
  }

  // undici tells the handler API by this member: without it the handler is taken for the deprecated one
  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.#status = statusCode;
    const value = headers['retry-after'];
    this.#retryAfter = Array.isArray(value) ? value[0] : value;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#bytes += chunk.length;
    if (this.#bytes >= MAX_RESPONSE_BYTES) {
      this.#finish(null);
      controller.abort(CAP_REACHED);
    }
  }

  onResponseEnd(): void {
    this.#finish(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.#finish(this.#status === null ? describe(error, this.timedOut) : null);
  }

  #finish(error: string | null): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.deadline);
    this.#resolve({
      status: error === null ? this.#status : null,
      retryAfter: error === null ? this.#retryAfter : undefined,
      durationMs: Math.round(performance.now() - this.#started),
      error,
      bytesRead: error === null ? Math.min(this.#bytes, MAX_RESPONSE_BYTES) : 0,
    });
  }
}

/** Where an attempt goes, as undici's dispatch takes it. */
interface Target {
  origin: string;
  /** path and query */
  path: string;
}

/**
 * URLs that passed parseTarget, per `allowInsecure`, with their origin and path. parseTarget depends on its two
 * arguments only (no DNS, no clock), so a URL that passed once passes again: it is checked once per distinct URL
 * instead of parsed at every attempt (a WHATWG URL parse and the userinfo regex, a few us per attempt). A refused one
 * is never kept (it throws each time). Bounded: cleared when full.
 */
const checkedUrls = [new Map<string, Target>(), new Map<string, Target>()];
const CHECKED_URLS_MAX = 1_024;

function checkUrl(url: string, allowInsecure: boolean): Target {
  const checked = checkedUrls[allowInsecure ? 1 : 0]!;
  const known = checked.get(url);
  if (known) return known;
  const parsed = parseTarget(url, allowInsecure);
  const target = { origin: parsed.url.origin, path: `${parsed.url.pathname}${parsed.url.search}` };
  if (checked.size >= CHECKED_URLS_MAX) checked.clear();
  checked.set(url, target);
  return target;
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
