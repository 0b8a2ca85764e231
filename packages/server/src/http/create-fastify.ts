/**
 * The one place a Fastify instance of this service is created: the main app and the stand-alone audit app share the
 * same strict settings (no coercion, no silent removal of unknown fields, body limit) and the same gateway, so the
 * two can never drift apart on input handling or authentication.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { AarError } from '@aar/core';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.ts';
import { registerDurableAnswers } from './durable-answers.ts';
import { registerGateway } from './gateway.ts';
import { problemFrom, sendProblem } from './problem.ts';
import './fastify-types.ts';

export interface BuildAppOptions {
  /** pino logger options, or false to silence (tests) */
  logger?: boolean | Record<string, unknown>;
  /**
   * Fastify's `schemaController.compilersFactory.buildSerializer` (default: Fastify's own). Tests that build many apps
   * in one process pass one that shares the compiled response serializers (test/support/shared-serializers.ts).
   */
  buildSerializer?: CompilersFactory['buildSerializer'];
  /** likewise `buildValidator` (test/support/shared-validators.ts) */
  buildValidator?: CompilersFactory['buildValidator'];
}

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

export async function createFastify(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: ctx.config.bodyLimit,
    // 10,000-deep JSON and similar abuse is refused by the strict parser; keep Fastify's own defaults strict too.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
    return503OnClosing: true,
    ...(options.buildSerializer || options.buildValidator
      ? {
          schemaController: {
            compilersFactory: {
              ...(options.buildSerializer ? { buildSerializer: options.buildSerializer } : {}),
              ...(options.buildValidator ? { buildValidator: options.buildValidator } : {}),
            },
          },
        }
      : {}),
    forceCloseConnections: true,
    // above every id a route accepts (IdParams: 256): Fastify's default of 100 answered a 160-character listing id 414
    routerOptions: { maxParamLength: 512 },
    // a URL the router cannot read (bad percent-encoding, a parameter above that) is refused like any other input,
    // as problem+json naming the URL, instead of Fastify's own JSON shape
    frameworkErrors: (error, request, reply) =>
      sendProblem(
        reply,
        problemFrom(
          new AarError('invalid_request', `the url cannot be read (\`${error.code}\`)`, {
            errors: [{ path: '/url', message: 'is not a valid url, or a path segment is too long' }],
          }),
          request,
        ),
      ),
  }).withTypeProvider<TypeBoxTypeProvider>();
  await registerGateway(app, ctx);
  // after the gateway's onSend hooks (the idempotency record is a write): no answer leaves before it is durable
  registerDurableAnswers(app, ctx.store);
  return app;
}
