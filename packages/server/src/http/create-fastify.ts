/**
 * The one place a Fastify instance of this service is created: the main app and the stand-alone audit app share the
 * same strict settings (no coercion, no silent removal of unknown fields, body limit) and the same gateway, so the
 * two can never drift apart on input handling or authentication.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.ts';
import { registerGateway } from './gateway.ts';
import './fastify-types.ts';

export interface BuildAppOptions {
  /** pino logger options, or false to silence (tests) */
  logger?: boolean | Record<string, unknown>;
}

export async function createFastify(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: ctx.config.bodyLimit,
    // 10,000-deep JSON and similar abuse is refused by the strict parser; keep Fastify's own defaults strict too.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
    return503OnClosing: true,
    forceCloseConnections: true,
  }).withTypeProvider<TypeBoxTypeProvider>();
  await registerGateway(app, ctx);
  return app;
}
