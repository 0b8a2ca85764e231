/**
 * `Idempotency-Key` on every authenticated POST (CONTRACT section 7, IETF draft "The Idempotency-Key HTTP Header
 * Field"). Keys are scoped to the credential; the request is identified by SHA-256 over method, URL (path and
 * query) and the RFC 8785 canonical JSON of the body, so key order and whitespace do not make two requests differ.
 * - first request: claimed `in_flight`, answered, then stored (status < 500) or forgotten (5xx: the client may retry);
 * - same key, same request, answered: the stored response, byte for byte, with `Idempotent-Replayed: true`;
 *   except that an answer carrying a secret shown once is stored without it (one-time-secrets.ts): the replay says
 *   `secret_omitted: true` instead, and the table never holds a secret;
 * - same key, first request still running: 409 `idempotency_in_flight` with `Retry-After: 1` (ACP asks for it);
 * - same key, another request: 422 `idempotency_key_reused`.
 * - no key from a credential bound to a connector whose manifest requires one: 400 `idempotency_key_required`.
 * INVARIANT: the response is stored before it is sent, so a client that saw an answer always gets it replayed.
 * A claim whose process died is freed after IN_FLIGHT_LEASE_SECONDS; a handler running longer than that could run
 * twice, which is why the lease is far above any request's time budget.
 * The hook runs at preHandler, after authentication and schema validation: a refused request claims nothing.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AarError, canonicalJson, fieldError } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  sweepExpiredIdempotencyKeys,
  type IdempotencyScope,
} from './idempotency-store.ts';
import type { Credential } from './fastify-types.ts';
import { markNoStore, oneTimeSecretMembers, withoutOneTimeSecrets } from './one-time-secrets.ts';
import { findConnector } from '../services/connectors/connector-catalogue.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IN_FLIGHT_LEASE_SECONDS = 300;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** what an in-flight conflict tells the client to wait before retrying (Retry-After, RFC 9110) */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;
const KEY_PATH = '/headers/idempotency-key';
/**
 * Headers replayed with the body: what a client needs to read it, where a created resource lives, and whether the
 * form it used is deprecated (deprecation.ts).
 */
const STORED_HEADERS = ['content-type', 'location', 'deprecation', 'sunset', 'link'] as const;
const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_BATCH = 100;

interface Claim extends IdempotencyScope {
  claimedAt: string;
  settled: boolean;
}

export function registerIdempotency(app: FastifyInstance, ctx: AppContext): void {
  const claims = new WeakMap<FastifyRequest, Claim>();
  let lastSweep = Number.NEGATIVE_INFINITY;

  /** Expired rows of keys never seen again go a small batch at a time, at most once a minute per instance. */
  const sweep = async (request: FastifyRequest, now: Date): Promise<void> => {
    if (now.getTime() - lastSweep < SWEEP_INTERVAL_MS) return;
    lastSweep = now.getTime();
    try {
      await sweepExpiredIdempotencyKeys(ctx.store.db, now, SWEEP_BATCH);
    } catch (error) {
      request.log.warn({ err: error }, 'idempotency sweep failed');
    }
  };

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || request.credential === null) return;
    const key = readIdempotencyKey(request);
    if (key === undefined) {
      if (connectorRequiresKey(request.credential)) {
        throw fieldError(
          'idempotency_key_required',
          KEY_PATH,
          'this credential’s connector requires an idempotency key',
        );
      }
      return;
    }
    const now = ctx.clock.now();
    await sweep(request, now);
    const scope: IdempotencyScope = { credentialId: request.credential.token_id, key };
    const result = await claimIdempotencyKey(ctx.store.db, {
      ...scope,
      requestHash: requestHash(request),
      now,
      leaseSeconds: IN_FLIGHT_LEASE_SECONDS,
    });
    switch (result.kind) {
      case 'claimed':
        claims.set(request, { ...scope, claimedAt: result.claimedAt, settled: false });
        return;
      case 'replay':
        reply.code(result.response.status);
        for (const [name, value] of Object.entries(result.response.headers)) reply.header(name, value);
        reply.header('idempotent-replayed', 'true');
        return reply.send(result.response.body);
      case 'in_flight':
        throw new AarError('idempotency_in_flight', `${KEY_PATH}: the first request with this key is still running`, {
          errors: [{ path: KEY_PATH, message: 'the first request with this key is still running' }],
          extra: { retry_after: IN_FLIGHT_RETRY_AFTER_SECONDS },
        });
      case 'mismatch':
        throw fieldError('idempotency_key_reused', KEY_PATH, 'was already used with another request');
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    // every answer of a secret-bearing route, with or without a key, first or replayed (one-time-secrets.ts)
    markNoStore(request, reply);
    const claim = claims.get(request);
    if (claim === undefined || claim.settled) return payload;
    claim.settled = true;
    const answered = reply.statusCode < 500 ? bytesOf(payload) : undefined;
    try {
      const body = answered && withoutOneTimeSecrets(answered, oneTimeSecretMembers(request));
      if (body === undefined) {
        await releaseIdempotencyKey(ctx.store.db, claim);
      } else {
        const expiresAt = new Date(ctx.clock.now().getTime() + ctx.config.idempotencyTtlSeconds * 1000);
        const response = { status: reply.statusCode, headers: storedHeaders(reply), body };
        await completeIdempotencyKey(ctx.store.db, { ...claim, response, expiresAt });
      }
    } catch (error) {
      // The operation has happened: answer it. The claim stays in flight until its lease ends (409 meanwhile),
      // which is safer than letting a retry run the operation a second time.
      request.log.error({ err: error }, 'idempotency record not written');
    }
    return payload;
  });
}

/**
 * Whether the credential's connector manifest says `requires_idempotency` (CONTRACT section 15). Fail closed: a
 * credential bound to a connector this release no longer ships is held to the stricter rule.
 */
function connectorRequiresKey(credential: Credential): boolean {
  if (credential.connector_id === undefined || credential.connector_id === null) return false;
  return findConnector(credential.connector_id)?.risk.requires_idempotency ?? true;
}

/** The key, undefined when absent; 400 naming the header when malformed (a list of keys included). */
export function readIdempotencyKey(request: Pick<FastifyRequest, 'headers'>): string | undefined {
  const value = request.headers[IDEMPOTENCY_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !KEY_PATTERN.test(value)) {
    throw fieldError('invalid_request', KEY_PATH, 'must be 1 to 255 visible ascii characters');
  }
  return value;
}

/** SHA-256 over method, URL and canonical body: what makes two requests "the same request". */
export function requestHash(request: Pick<FastifyRequest, 'method' | 'url' | 'body'>): string {
  const body = request.body === undefined ? '' : canonicalJson(request.body);
  // method and URL never hold a newline, so the separators cannot be forged from the body
  return createHash('sha256').update(`${request.method}\n${request.url}\n`).update(body, 'utf8').digest('hex');
}

function storedHeaders(reply: FastifyReply): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = reply.getHeader(name);
    if (typeof value === 'string' || typeof value === 'number') out[name] = String(value);
  }
  return out;
}

/** The payload as bytes; undefined for a stream, which cannot be stored (the claim is then released). */
function bytesOf(payload: unknown): Buffer | undefined {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (Buffer.isBuffer(payload)) return payload;
  if (payload instanceof Uint8Array) return Buffer.from(payload);
  return undefined;
}
