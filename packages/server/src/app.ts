/**
 * buildApp(): the Fastify application, apart from listen() so tests use app.inject() and e2e tests a real socket.
 * Order matters: error handling and parsing first, then request id/metrics, rate limit, authentication,
 * idempotency, and the routes last.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from './app-context.ts';
import { registerGateway } from './http/gateway.ts';
import { registerRoutes } from './routes/index.ts';
import './http/fastify-types.ts';

export interface BuildAppOptions {
  /** pino logger options, or false to silence (tests) */
  logger?: boolean | Record<string, unknown>;
}

export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: ctx.config.bodyLimit,
    // 10,000-deep JSON and similar abuse is refused by the strict parser; keep Fastify's own defaults strict too.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
    return503OnClosing: true,
    forceCloseConnections: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  await registerGateway(app, ctx);
  await registerRoutes(app, ctx);
  await app.ready();
  return app;
}
