/**
 * The audit chain alone (`aar audit-serve`, CONTRACT section 8): the same store and configuration as `aar serve`,
 * its own small Fastify app behind the project's gateway (authentication and roles, rate limit, strict JSON,
 * problem+json, idempotency, health and metrics), with the audit routes at its root (`POST /append`,
 * `GET /verify`, `/checkpoint`, `/entries/{index}`, `/proofs/…`) and the JWKS that verifies its checkpoints.
 * The Fastify options repeat buildApp()'s (app.ts): the same limits and the same strict schema validation.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.ts';
import type { BuildAppOptions } from '../app.ts';
import { registerGateway } from '../http/gateway.ts';
import { auditRoutes } from '../routes/audit.ts';
import { jwksRoutes } from '../routes/jwks.ts';
import '../http/fastify-types.ts';

export async function buildAuditApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: ctx.config.bodyLimit,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
    return503OnClosing: true,
    forceCloseConnections: true,
  }).withTypeProvider<TypeBoxTypeProvider>();
  await registerGateway(app, ctx);
  await jwksRoutes(app, ctx);
  await auditRoutes(app, ctx, '');
  await app.ready();
  return app;
}
