/**
 * Raw card numbers are refused in URLs too, not only in bodies: a path or query string ends up in access logs,
 * proxies and problem documents. The refusal comes first (before authentication), and every URL that reaches a
 * log or a problem document has long digit runs masked, so the number is never written anywhere.
 */
import { AarError, containsPan } from '@aar/core';
import type { FastifyInstance } from 'fastify';

const LONG_DIGIT_RUN = /\d(?:[\s-]?\d){11,}/g;

/** The URL with every run of 12 or more digits replaced: safe to log or to echo. */
export function maskDigitRuns(url: string): string {
  return url.replace(LONG_DIGIT_RUN, '[digits]');
}

function decoded(url: string): string {
  try {
    return decodeURIComponent(url.replaceAll('+', ' '));
  } catch {
    return url;
  }
}

export function registerPanInUrlGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (containsPan(decoded(request.url))) {
      throw new AarError('pan_refused', 'a raw card number is not accepted anywhere in a request; send a card token', {
        errors: [{ path: '/url', message: 'holds a raw card number' }],
      });
    }
  });
}
