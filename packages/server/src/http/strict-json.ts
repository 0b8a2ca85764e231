/**
 * The only body parser of the service: strict JSON objects, nothing else (every other media type is 415).
 * Fastify's parser (secure-json-parse over JSON.parse) keeps the last of duplicate keys and rounds big integers;
 * core's `parseStrictJsonBytes` refuses both, invalid UTF-8 and a BOM included.
 * Attacker assumption: the body is chosen to confuse a later reader (a signer, an auditor) or to smuggle a card
 * number; a refused card number is named by its path only, never echoed or logged.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AarError, assertNoPan, fieldError, parseStrictJsonBytes } from '@aar/core';

/** `application/json` and every structured-syntax `+json` type (RFC 6839), parameters allowed after `;`. */
const JSON_MEDIA_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.+-]+\+json)(?:;|$)/;

/** Methods whose empty JSON body is refused; a DELETE may carry the header of a client's defaults and no body. */
const BODY_REQUIRED = new Set(['POST', 'PUT', 'PATCH']);

export function registerStrictJson(app: FastifyInstance): void {
  // text/plain would reach handlers as an unchecked string (and is a CORS "simple" type): no parser but ours.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, (request, body, done) => {
    try {
      request.rawBody = body as Buffer;
      done(null, parseJsonObjectBody(request, body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** Parses one request body: a strict JSON object without card numbers, or an AarError. */
export function parseJsonObjectBody(request: Pick<FastifyRequest, 'method' | 'headers'>, body: Uint8Array): unknown {
  assertUtf8Charset(request.headers['content-type']);
  if (body.length === 0) {
    if (BODY_REQUIRED.has(request.method)) throw fieldError('invalid_json', '', 'body is empty');
    return undefined;
  }
  const value = parseStrictJsonBytes(body);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fieldError('invalid_json', '', 'body must be a json object');
  }
  assertNoPan(value);
  assertNoNul(body, value);
  return value;
}

/**
 * U+0000 in any string is refused naming its path: PostgreSQL cannot store it in text (a 500) and SQLite would keep a
 * value that C-string readers truncate. A raw NUL is already invalid JSON, so only the `\u0000` escape can carry one;
 * the cheap byte scan keeps the walk off every ordinary body.
 */
function assertNoNul(body: Uint8Array, value: unknown): void {
  if (!/\\u0000/i.test(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1'))) return;
  const path = findNul(value, '');
  if (path !== undefined) throw fieldError('invalid_request', path, 'must not contain the NUL character (U+0000)');
}

function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const childPath = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (key.includes('\u0000')) return childPath;
    const found = findNul(child, childPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** JSON is UTF-8 (RFC 8259 section 8.1): a body announced in another charset would be read as something else. */
function assertUtf8Charset(contentType: string | undefined): void {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  if (match && !/^utf-?8$/i.test(match[1] ?? '')) {
    throw new AarError('unsupported_media_type', 'json is only accepted as `utf-8`');
  }
}
