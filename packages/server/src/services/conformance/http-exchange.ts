/**
 * The runner's HTTP client: one request, its exact bytes known before it is sent (so a step can be repeated byte for
 * byte), the answer read whole (bounded) and parsed as JSON when it says so. Redirects are never followed: a
 * deployment that redirects a call has answered it with the redirect.
 */

export interface PreparedRequest {
  method: string;
  /** where the request is sent (the connection URL) */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Exchange {
  status: number;
  headers: Headers;
  text: string;
  /** the parsed body when it is JSON (`application/json`, `application/problem+json`, `+json`) */
  json: unknown;
  duration_ms: number;
}

const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const TIMEOUT_MS = 60_000;

export async function exchange(request: PreparedRequest): Promise<Exchange> {
  const started = performance.now();
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    redirect: 'manual',
    signal: AbortSignal.timeout(TIMEOUT_MS),
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const buffer = Buffer.from(await response.arrayBuffer());
  if (buffer.length > MAX_RESPONSE_BYTES) throw new Error(`the answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
  const text = buffer.toString('utf8');
  const type = response.headers.get('content-type') ?? '';
  let json: unknown;
  if (/^application\/([a-z0-9.-]+\+)?json\b/i.test(type) && text !== '') {
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new Error(`the answer says \`${type}\` but is not JSON: ${(error as Error).message}`, { cause: error });
    }
  }
  return { status: response.status, headers: response.headers, text, json, duration_ms: performance.now() - started };
}
