/**
 * buildApp(): the Fastify application, apart from listen() so tests use app.inject() and e2e tests a real socket.
 * The gateway (error handling, parsing, request ids, metrics, rate limit, authentication, idempotency) comes first,
 * from createFastify; the routes last.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.ts';
import { createFastify, type BuildAppOptions } from './http/create-fastify.ts';
import { registerRoutes } from './routes/index.ts';

export type { BuildAppOptions } from './http/create-fastify.ts';

export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = await createFastify(ctx, options);
  await registerRoutes(app, ctx);
  await app.ready();
  return app;
}
