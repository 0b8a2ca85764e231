/**
 * Raw card numbers are refused in URLs and in the headers the service keeps, not only in bodies: a path or query
 * string ends up in access logs, proxies and problem documents; an `Idempotency-Key` is stored with its response, a
 * signature's nonce in `request_nonces`. The refusal comes first (before authentication), names the place
 * (`/url`, `/headers/<name>`) and never the number, and every URL that reaches a log or a problem document has long
 * digit runs masked, so the number is never written anywhere.
 * (`X-Request-Id` is kept and echoed only when it holds no card number: request-id.ts replaces it otherwise.)
 */
import { AarError, containsPan, maskLongDigitRuns } from '@aar/core';
import type { FastifyInstance } from 'fastify';

/** Request headers the service stores or records; a card number in any of them is refused. */
export const STORED_REQUEST_HEADERS: readonly string[] = ['idempotency-key', 'signature-input'];

function decoded(url: string): string {
  try {
    return decodeURIComponent(url.replaceAll('+', ' '));
  } catch {
    return url;
  }
}

/**
 * The URL with every run of 12 or more digits replaced: safe to log or to echo. A URL that holds a card number only
 * once decoded (percent-encoded digits, full-width digits) keeps none of its digits or escapes.
 */
export function maskDigitRuns(url: string): string {
  if (containsPan(decoded(url))) return url.replace(/%[0-9A-Fa-f]{2}|\p{Nd}/gu, '*');
  return maskLongDigitRuns(url).replace(/\*(?:[\s._-]?\*){11,}/g, '[digits]');
}

/** The pointer of the first stored header holding a card number, or undefined. */
export function findPanInHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  for (const name of STORED_REQUEST_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    const lines = Array.isArray(value) ? value : [value];
    if (lines.some((line) => containsPan(line))) return `/headers/${name}`;
  }
  return undefined;
}

export function registerPanInUrlGuard(app: FastifyInstance): void {
  // callback form (nothing to wait for): a refusal goes to `done`, as a rejected async hook's error would
  app.addHook('onRequest', (request, _reply, done) => {
    let place: string | undefined;
    try {
      place = containsPan(decoded(request.url)) ? '/url' : findPanInHeaders(request.headers);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (place === undefined) {
      done();
      return;
    }
    done(
      new AarError('pan_refused', 'a raw card number is not accepted anywhere in a request; send a card token', {
        errors: [{ path: place, message: 'holds a raw card number' }],
      }),
    );
  });
}
