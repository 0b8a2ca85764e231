/**
 * Request ids: a caller's own `x-request-id` is kept when it is a plain token (it may travel through logs and
 * across services), anything else is replaced by a random UUID. The id is echoed on every response and carried
 * in every problem document, so a user's report can be matched with the log line.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { containsPan } from '@aar/core';

export const REQUEST_ID_HEADER = 'x-request-id';
/** No spaces, quotes or control characters: the value lands in log lines and response headers. */
const ACCEPTED_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestIdFor(raw: { headers: IncomingHttpHeaders }): string {
  const incoming = raw.headers[REQUEST_ID_HEADER];
  // A card number is never echoed or logged, even as an id: it is replaced like any other unacceptable id. Read as
  // free text (core/pan), so one next to hex letters (`4111111111111111deadbeefdeadbeef`) is no trace id either; the
  // price is that about 1 caller UUID in 300 is replaced too, which costs a correlation, never a request.
  return typeof incoming === 'string' && ACCEPTED_ID.test(incoming) && !containsPan(incoming, { freeText: true })
    ? incoming
    : randomUUID();
}

export function registerRequestIds(app: FastifyInstance): void {
  app.setGenReqId(requestIdFor);
  // callback form: nothing to wait for, so no promise and no microtask hop per response
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done(null, payload);
  });
}
