/**
 * The view of an HTTP request that signing and verification share. On the server, `url` is the absolute target URI
 * the server routed (scheme, host and the raw path and query) and `body` the exact bytes received: a re-serialized
 * body or a guessed URL would make honest signatures fail and could let a signature cover something else.
 */
import { utf8Encode } from '../encoding/utf8.ts';

/** Plain objects (Node and Fastify: lowercase names, arrays for repeated fields) or WHATWG `Headers`. */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | number | undefined>>;

export interface SignableRequest {
  method: string;
  /** absolute `http:` or `https:` URL; a fragment is ignored */
  url: string;
  headers?: HeaderSource;
  /** the exact body bytes (a string stands for its UTF-8 bytes); absent means empty */
  body?: Uint8Array | string;
}

function isHeadersObject(headers: HeaderSource): headers is Headers {
  return typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function';
}

/**
 * Every field line of `name` (case-insensitive), in order; undefined when the field is absent. Plain objects may
 * hold one name in several spellings (`Signature` and `signature`): all of them count, as separate lines would.
 */
export function headerLines(headers: HeaderSource | undefined, name: string): string[] | undefined {
  if (headers === undefined || headers === null) return undefined;
  const lower = name.toLowerCase();
  if (isHeadersObject(headers)) {
    const value = headers.get(lower);
    return value === null ? undefined : [value];
  }
  const lines: string[] = [];
  let found = false;
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== lower) continue;
    const value = headers[key];
    if (value === undefined) continue;
    found = true;
    if (Array.isArray(value)) lines.push(...value.map(String));
    else lines.push(String(value));
  }
  return found ? lines : undefined;
}

/** The field's lines joined as RFC 9110 section 5.3 combines them; undefined when absent. */
export function headerValue(headers: HeaderSource | undefined, name: string): string | undefined {
  return headerLines(headers, name)?.join(', ');
}

/** The body as bytes. Throws `invalid_request` for a string with a lone surrogate (it has no UTF-8 form). */
export function bodyBytes(body: Uint8Array | string | undefined): Uint8Array {
  if (body === undefined) return new Uint8Array(0);
  return typeof body === 'string' ? utf8Encode(body) : body;
}
