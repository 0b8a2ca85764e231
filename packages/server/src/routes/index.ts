import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { cardTokenRoutes } from './card-tokens.ts';
import { entityRoutes } from './entities.ts';
import { eventRoutes } from './events.ts';
import { grantRoutes } from './grants.ts';
import { jwksRoutes } from './jwks.ts';
import { merchantRoutes } from './merchants.ts';
import { tokenRoutes } from './tokens.ts';

/** One file per resource; each registers its own routes with their schemas (which feed the OpenAPI document). */
export async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  for (const register of [
    jwksRoutes,
    entityRoutes,
    cardTokenRoutes,
    merchantRoutes,
    grantRoutes,
    tokenRoutes,
    eventRoutes,
  ]) {
    await register(app, ctx);
  }
}
