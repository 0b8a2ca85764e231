/**
 * Rate limits (CONTRACT section 11, SECURITY.md): `AAR_RATE_LIMIT` requests per minute per credential, or per
 * address when no token is presented; and a stricter budget of failed authentications per address, checked before
 * the token lookup, so guessing tokens (each guess a fresh per-token bucket) is slowed to that budget.
 * Counting is @fastify/rate-limit's in-memory store: per instance, so N instances allow N times the limit.
 * We call its limiters from our own hook (not its per-route hook) to run before authentication.
 */
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AarError } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { presentedTokenHash, readBearerToken } from './bearer-token.ts';

export const FAILED_AUTH_PER_MINUTE = 60;
const WINDOW_MS = 60_000;

export interface RateLimitOptions {
  /** failed authentications allowed per address and minute; default FAILED_AUTH_PER_MINUTE */
  failedAuthPerMinute?: number;
}

/** The failed-authentication budget, used by the authentication hook. */
export interface FailedAuthLimiter {
  /** throws `rate_limited` when this address has used its budget of failed authentications */
  assertBudget(request: FastifyRequest): Promise<void>;
  /** counts one failed authentication of this address */
  record(request: FastifyRequest): Promise<void>;
}

export async function registerRateLimit(
  app: FastifyInstance,
  ctx: AppContext,
  options: RateLimitOptions = {},
): Promise<FailedAuthLimiter> {
  // global: false: the plugin adds no hooks of its own; routes may still opt into an extra limit with config.rateLimit.
  await app.register(rateLimit, { global: false, cache: 10_000 });
  const perCaller = app.createRateLimit({ max: ctx.config.rateLimit, timeWindow: WINDOW_MS, keyGenerator: callerKey });
  const failed = app.createRateLimit({
    max: options.failedAuthPerMinute ?? FAILED_AUTH_PER_MINUTE,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => `failed-auth:${addressOf(request)}`,
  });

  app.addHook('onRequest', async (request, reply) => {
    // health and metrics opt out with `config.rateLimit: false`: a monitor must not be throttled into alarms
    if (request.routeOptions.config?.rateLimit === false) return;
    const result = await perCaller(request);
    if (result.isAllowed) return;
    reply.header('x-ratelimit-limit', result.max);
    reply.header('x-ratelimit-remaining', result.remaining);
    reply.header('x-ratelimit-reset', retryAfterSeconds(result.ttl));
    if (result.isExceeded) {
      throw rateLimited(`more than ${result.max} requests per minute`, retryAfterSeconds(result.ttl));
    }
  });

  return {
    async assertBudget(request) {
      const result = await failed(request, { increment: false });
      if (!result.isAllowed && result.remaining === 0) {
        throw rateLimited('too many failed authentications from this address', retryAfterSeconds(result.ttl));
      }
    },
    async record(request) {
      await failed(request);
    },
  };
}

/** The caller's bucket: the presented token's hash (never the token itself), else the client address. */
function callerKey(request: FastifyRequest): string {
  const bearer = readBearerToken(request);
  return bearer.kind === 'present'
    ? `token:${presentedTokenHash(request, bearer.token)}`
    : `address:${addressOf(request)}`;
}

/** IPv6 clients are bucketed per /64, the smallest block one subscriber usually holds. */
function addressOf(request: FastifyRequest): string {
  return normalizeIP(request.ip, 64);
}

function retryAfterSeconds(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}

function rateLimited(what: string, retryAfter: number): AarError {
  return new AarError('rate_limited', `${what}; retry in ${retryAfter} s`, { extra: { retry_after: retryAfter } });
}
