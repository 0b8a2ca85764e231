/**
 * The audit chain alone (`aar audit-serve`, CONTRACT section 8): the same store and configuration as `aar serve`,
 * its own small Fastify app behind the project's gateway (authentication and roles, rate limit, strict JSON,
 * problem+json, idempotency, health and metrics), with the audit routes at its root (`POST /append`,
 * `GET /verify`, `/checkpoint`, `/entries/{index}`, `/proofs/…`) and the JWKS that verifies its checkpoints.
 * It is created by createFastify, like buildApp(): the same limits, strict validation and gateway.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { createFastify, type BuildAppOptions } from '../http/create-fastify.ts';
import { auditRoutes } from '../routes/audit.ts';
import { jwksRoutes } from '../routes/jwks.ts';

export async function buildAuditApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = await createFastify(ctx, options);
  await jwksRoutes(app, ctx);
  await auditRoutes(app, ctx, '');
  await app.ready();
  return app;
}
