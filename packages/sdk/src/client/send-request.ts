/**
 * One logical call to the service: builds the URL, sends, retries as retry-policy.ts says, and turns the answer into
 * a value or an AarApiError. Every attempt of a POST carries the same Idempotency-Key; `sign` runs again for every
 * attempt (the service accepts an RFC 9421 nonce once, so a resent signature would be refused as a replay).
 * Redirects are never followed: the bearer token must not travel to another origin.
 */
import { AarApiError, AarNetworkError, type ProblemDocument } from './errors.ts';
import { parseRetryAfter, RETRY_STATUSES, retryDelayMs, type RetryOptions } from './retry-policy.ts';

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

export interface TransportOptions {
  baseUrl: string;
  token: string | undefined;
  fetch: typeof globalThis.fetch;
  retry: RetryOptions;
  userAgent: string;
  /** one attempt's time limit */
  timeoutMs: number;
  headers: Readonly<Record<string, string>>;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** milliseconds since the epoch, for `Retry-After` dates */
  now: () => number;
  random: () => number;
  newIdempotencyKey: () => string;
}

export interface SendRequest {
  method: string;
  /** the path, already expanded, with its leading slash */
  path: string;
  query?: Readonly<Record<string, QueryValue>> | undefined;
  /** serialised as JSON once; the same bytes go out on every attempt */
  body?: unknown;
  /** the exact body text, instead of `body` */
  bodyText?: string | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
  /** POST only: defaults to a fresh random UUID per logical call */
  idempotencyKey?: string | undefined;
  /** headers to add for the exact body sent (the agent's RFC 9421 signature); called before every attempt */
  sign?: ((bodyText: string | undefined) => Promise<Readonly<Record<string, string>>>) | undefined;
  signal?: AbortSignal | undefined;
  responseType?: 'json' | 'text' | undefined;
}

export interface AarResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  /** how many times the request was sent */
  attempts: number;
  /** the Idempotency-Key sent (POST) */
  idempotencyKey: string | undefined;
  /** the service answered from its idempotency store (`Idempotent-Replayed: true`) */
  replayed: boolean;
}

export function buildUrl(baseUrl: string, path: string, query?: Readonly<Record<string, QueryValue>>): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  return url.toString();
}

type Attempt =
  { kind: 'response'; response: Response; text: string } | { kind: 'network'; error: unknown; timedOut: boolean };

export async function sendRequest<T = unknown>(transport: TransportOptions, req: SendRequest): Promise<AarResponse<T>> {
  const method = req.method.toUpperCase();
  const url = buildUrl(transport.baseUrl, req.path, req.query);
  const bodyText = req.bodyText ?? (req.body === undefined ? undefined : JSON.stringify(req.body));
  const idempotencyKey = method === 'POST' ? (req.idempotencyKey ?? transport.newIdempotencyKey()) : undefined;
  const headers: Record<string, string> = {
    accept: 'application/json, application/problem+json;q=0.9, */*;q=0.1',
    'user-agent': transport.userAgent,
    ...transport.headers,
  };
  if (transport.token) headers.authorization = `Bearer ${transport.token}`;
  if (bodyText !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  Object.assign(headers, req.headers);

  const { retry } = transport;
  for (let attempt = 1; ; attempt++) {
    req.signal?.throwIfAborted();
    const signed = req.sign ? await req.sign(bodyText) : {};
    const outcome = await attemptOnce(transport, url, method, { ...headers, ...signed }, bodyText, req.signal);
    const last = attempt >= retry.maxAttempts;
    if (outcome.kind === 'network') {
      if (last) throw new AarNetworkError(method, req.path, attempt, outcome.error, outcome.timedOut);
      await transport.sleep(retryDelayMs(attempt - 1, undefined, retry, transport.random), req.signal);
      continue;
    }
    const { response, text } = outcome;
    if (response.status >= 200 && response.status < 300) {
      return {
        status: response.status,
        headers: response.headers,
        body: decodeBody(text, response, req.responseType ?? 'json', method, req.path, attempt) as T,
        attempts: attempt,
        idempotencyKey,
        replayed: response.headers.get('idempotent-replayed') === 'true',
      };
    }
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), transport.now());
    const problem = readProblem(text);
    const error = new AarApiError({
      method,
      path: req.path,
      status: response.status,
      problem,
      requestId:
        (typeof problem.request_id === 'string' ? problem.request_id : undefined) ??
        response.headers.get('x-request-id') ??
        undefined,
      retryAfterMs,
      attempts: attempt,
    });
    if (last || !isRetryable(error, attempt)) throw error;
    await transport.sleep(retryDelayMs(attempt - 1, retryAfterMs, retry, transport.random), req.signal);
  }
}

/**
 * 429 and 503 always; 409 `idempotency_in_flight` only on a retry: the attempt before was cut off (a network error)
 * while the service was still answering it, and the next retry will be answered from the idempotency store.
 */
function isRetryable(error: AarApiError, attempt: number): boolean {
  if (RETRY_STATUSES.has(error.status)) return true;
  return attempt > 1 && error.status === 409 && error.code === 'idempotency_in_flight';
}

async function attemptOnce(
  transport: TransportOptions,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
): Promise<Attempt> {
  const timeout = AbortSignal.timeout(transport.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const response = await transport.fetch(url, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
      signal: combined,
    });
    // the body is part of the attempt: a connection reset while reading it is a network error too
    const text = await response.text();
    return { kind: 'response', response, text };
  } catch (error) {
    // the caller's own abort ends the call at once; it is not a failure to retry
    if (signal?.aborted) throw signal.reason;
    return { kind: 'network', error, timedOut: timeout.aborted };
  }
}

function decodeBody(
  text: string,
  response: Response,
  type: 'json' | 'text',
  method: string,
  path: string,
  attempts: number,
): unknown {
  if (type === 'text') return text;
  if (response.status === 204 || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AarApiError({
      method,
      path,
      status: response.status,
      problem: { code: 'invalid_response', detail: 'the response body is not JSON' },
      attempts,
    });
  }
}

function readProblem(text: string): ProblemDocument {
  if (text === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as ProblemDocument) : {};
  } catch {
    // a proxy's HTML page, say: the status alone tells what happened
    return {};
  }
}
