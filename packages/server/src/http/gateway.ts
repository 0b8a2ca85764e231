/**
 * The HTTP gateway: everything between the socket and a route handler. Order is the contract:
 * 1. problem+json for every error and unknown route, and the strict JSON body parser;
 * 2. OpenAPI (before any route, so every route is documented), request ids, metrics, health;
 * 3. onRequest: rate limit (per credential, else per address), then authentication and roles;
 * 4. preHandler (after schema validation): Idempotency-Key on authenticated POSTs.
 * buildApp() calls this before registerRoutes().
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { registerAuthentication } from './authenticate.ts';
import { registerErrorHandling } from './error-handler.ts';
import { registerIdempotency } from './idempotency.ts';
import { registerObservability } from './observability.ts';
import { registerOpenApi } from './openapi.ts';
import { registerPanInUrlGuard } from './pan-in-url.ts';
import { registerRateLimit, type RateLimitOptions } from './rate-limit.ts';
import { registerStrictJson } from './strict-json.ts';
import { registerVersionHeader } from './version-header.ts';
import './fastify-types.ts';

export type GatewayOptions = RateLimitOptions;

export async function registerGateway(
  app: FastifyInstance,
  ctx: AppContext,
  options: GatewayOptions = {},
): Promise<void> {
  app.decorateRequest('credential', null);
  app.decorateRequest('rawBody', undefined);
  registerErrorHandling(app);
  registerVersionHeader(app);
  registerStrictJson(app);
  registerPanInUrlGuard(app);
  await registerOpenApi(app);
  registerObservability(app, ctx);
  const failedAuth = await registerRateLimit(app, ctx, options);
  registerAuthentication(app, ctx, failedAuth);
  registerIdempotency(app, ctx);
}
