/**
 * `aar-version: <semver>` on every response (CONTRACT section 16), errors, 404s and rate-limit refusals included: a
 * client can tell which release answered without a second request. onSend runs for every reply Fastify sends.
 */
import type { FastifyInstance } from 'fastify';
import { SERVER_VERSION } from './server-version.ts';

export const VERSION_HEADER = 'aar-version';

export function registerVersionHeader(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header(VERSION_HEADER, SERVER_VERSION);
    return payload;
  });
}
