import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { GrantLinkVerifier } from '../services/authorize/grant-link-verifier.ts';
import { approvalRoutes } from './approvals.ts';
import { cardTokenRoutes } from './card-tokens.ts';
import { decisionRoutes } from './decisions.ts';
import { entityRoutes } from './entities.ts';
import { eventRoutes } from './events.ts';
import { grantRoutes } from './grants.ts';
import { jwksRoutes } from './jwks.ts';
import { merchantRoutes } from './merchants.ts';
import { riskSignalRoutes } from './risk-signals.ts';
import { runtimeRoutes } from './runtime.ts';
import { tokenRoutes } from './tokens.ts';

/** One file per resource; each registers its own routes with their schemas (which feed the OpenAPI document). */
export async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const resources = [jwksRoutes, entityRoutes, cardTokenRoutes, merchantRoutes, grantRoutes, tokenRoutes, eventRoutes];
  for (const register of [...resources, decisionRoutes, approvalRoutes, riskSignalRoutes]) await register(app, ctx);
  // one verifier per app: it caches which grant links were already verified
  await runtimeRoutes(app, ctx, new GrantLinkVerifier(ctx));
}
