/**
 * `aar-version: <semver>` on every response (CONTRACT section 16), errors, 404s and rate-limit refusals included: a
 * client can tell which release answered without a second request. onSend runs for every reply Fastify sends.
 */
import type { FastifyInstance } from 'fastify';
import { SERVER_VERSION } from './server-version.ts';

export const VERSION_HEADER = 'aar-version';

export function registerVersionHeader(app: FastifyInstance): void {
  // callback form: nothing to wait for, so no promise and no microtask hop per response
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header(VERSION_HEADER, SERVER_VERSION);
    done(null, payload);
  });
}
