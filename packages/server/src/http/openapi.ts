/**
 * The OpenAPI 3.1 document, generated from the route schemas by @fastify/swagger: the API reference is never
 * written by hand. Every operation needs the bearer token unless its route is `config.public` (`security: []`),
 * and every operation documents the problem+json answer of its errors.
 * Must be registered before the routes: the plugin learns routes from the onRoute hook.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { PROBLEM_TYPE_PREFIX } from './problem.ts';
import { SERVER_VERSION } from './server-version.ts';

export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_PREFIX = '/docs';
const SECURITY_SCHEME = 'bearerAuth';

const STRING = { type: 'string' as const };
const PROBLEM_SCHEMA = {
  type: 'object' as const,
  description: `RFC 9457 problem document; \`type\` is \`${PROBLEM_TYPE_PREFIX}<code>\``,
  required: ['type', 'title', 'status', 'detail', 'code', 'instance', 'request_id'],
  properties: {
    type: STRING,
    title: STRING,
    status: { type: 'integer' as const },
    detail: STRING,
    code: STRING,
    instance: STRING,
    request_id: STRING,
    errors: {
      type: 'array' as const,
      items: {
        type: 'object' as const,
        required: ['path', 'message'],
        properties: { path: STRING, message: STRING },
      },
    },
  },
};

const PROBLEM_RESPONSE = {
  description: 'Problem (RFC 9457): every error, with a stable `code`',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};

export type OpenApiDocument = ReturnType<FastifyInstance['swagger']>;

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Agent Authority Runtime',
        version: SERVER_VERSION,
        description: 'Decides whether an AI agent may act for a principal, and leaves signed, verifiable evidence.',
      },
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'an API token (`aar_…`)' },
        },
        schemas: { Problem: PROBLEM_SCHEMA },
      },
      security: [{ [SECURITY_SCHEME]: [] }],
    },
    transform: ({ schema, url, route }) => ({ schema: documentedSchema(schema, route), url }),
  });

  app.get(OPENAPI_PATH, { config: { public: true }, schema: { summary: 'This document', tags: ['meta'] } }, async () =>
    app.swagger(),
  );

  // swagger-ui's routes (page, assets, its own copy of the document) are public, and only they: the hook is scoped.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    await docs.register(swaggerUi, { routePrefix: DOCS_PREFIX });
  });
}

/** The document of a ready app, for `aar openapi`. */
export function openApiDocument(app: FastifyInstance): OpenApiDocument {
  return app.swagger();
}

function documentedSchema(schema: RouteOptions['schema'] | undefined, route: RouteOptions): Record<string, unknown> {
  const documented: Record<string, unknown> = { ...(schema ?? {}) };
  if (route.config?.public === true) documented.security = [];
  const responses = (schema?.response ?? {}) as Record<string, unknown>;
  documented.response = { ...responses, default: responses.default ?? PROBLEM_RESPONSE };
  return documented;
}
