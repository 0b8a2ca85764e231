/**
 * The OpenAPI 3.1 document, generated from the route schemas by @fastify/swagger: the API reference is never
 * written by hand. Every operation needs the bearer token unless its route is `config.public` (`security: []`),
 * and every operation documents the problem+json answer of its errors.
 * Must be registered before the routes: the plugin learns routes from the onRoute hook.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ErrorCode } from '@aar/core';
import { PROBLEM_TYPE_PREFIX, STATUS_BY_CODE } from './problem.ts';
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
        properties: { path: STRING, message: STRING, code: STRING, detail: STRING },
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

  app.get(
    OPENAPI_PATH,
    {
      config: { public: true },
      schema: {
        summary: 'This document',
        operationId: 'getOpenApiDocument',
        description:
          'The OpenAPI 3.1 description of this deployment, generated from the route schemas at start: every ' +
          'operation with its roles (`x-roles`), its success answer and one problem+json answer per status, listing ' +
          'the error codes it can give. Generate clients from it; `/docs` renders it.',
        tags: ['meta'],
        response: {
          200: { type: 'object', additionalProperties: true, description: 'an OpenAPI 3.1 document' },
        },
      },
    },
    async () => app.swagger(),
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

/**
 * What a client generator needs of every operation, derived so that no route can forget it: the roles that may call
 * it (`x-roles`, and a line of the description), and one problem+json response per status it can answer with, each
 * listing its codes. Unions of string literals become `enum`s (TypeBox writes them as `anyOf` of `const`s). The
 * summary, description and `operationId` are each route's own (test/http/openapi-completeness.test.ts holds every
 * route to them).
 */
function documentedSchema(schema: RouteOptions['schema'] | undefined, route: RouteOptions): Record<string, unknown> {
  const documented: Record<string, unknown> = { ...(schema ?? {}) };
  const isPublic = route.config?.public === true;
  if (isPublic) documented.security = [];
  const roles = isPublic ? [] : ['admin', ...(route.config?.roles ?? []).filter((role) => role !== 'admin')];
  documented['x-roles'] = isPublic ? ['public'] : roles;
  const rolesLine = isPublic ? 'Public: no token needed.' : `Roles: ${roles.map((r) => `\`${r}\``).join(', ')}.`;
  const description = typeof schema?.description === 'string' ? schema.description : '';
  documented.description = description ? `${description}\n\n${rolesLine}` : rolesLine;
  const responses: Record<string, unknown> = { ...((schema?.response ?? {}) as Record<string, unknown>) };
  for (const [status, codes] of errorResponsesOf(route, isPublic)) {
    responses[String(status)] ??= problemResponse(codes);
  }
  documented.response = { ...responses, default: responses.default ?? PROBLEM_RESPONSE };
  return enumsForLiteralUnions(documented) as Record<string, unknown>;
}

/** The error codes a route can answer with, grouped by HTTP status (see `FastifyContextConfig.errors`). */
export function errorResponsesOf(route: RouteOptions, isPublic: boolean): Map<number, ErrorCode[]> {
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const writes = methods.some((m) => m !== 'GET' && m !== 'HEAD');
  const codes = new Set<ErrorCode>(['internal', 'storage_unavailable']);
  // health and metrics opt out of the rate limit (http/rate-limit.ts): they never answer 429
  if (route.config?.rateLimit !== false) codes.add('rate_limited');
  if (!isPublic) for (const code of ['unauthenticated', 'forbidden'] as const) codes.add(code);
  if (schema.body !== undefined || schema.querystring !== undefined || schema.params !== undefined) {
    codes.add('invalid_request');
  }
  if (schema.body !== undefined) {
    for (const code of ['invalid_json', 'pan_refused', 'payload_too_large', 'unsupported_media_type'] as const) {
      codes.add(code);
    }
  }
  if (schema.params !== undefined || /[:{]/.test(route.url))
    for (const c of ['invalid_id', 'not_found'] as const) codes.add(c);
  if (methods.includes('POST')) {
    for (const code of ['idempotency_in_flight', 'idempotency_key_reused'] as const) codes.add(code);
    // a credential bound to a connector that requires idempotency (docs/connectors.md)
    if (!isPublic) codes.add('idempotency_key_required');
  }
  if (writes) codes.add('audit_unavailable');
  for (const code of route.config?.errors ?? []) codes.add(code);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes].sort()) {
    const status = STATUS_BY_CODE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

function problemResponse(codes: readonly ErrorCode[]): Record<string, unknown> {
  return {
    description: `Problem (RFC 9457), \`code\` one of: ${codes.map((c) => `\`${c}\``).join(', ')}`,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

/**
 * `anyOf: [{ const: 'a' }, { const: 'b' }]` (how TypeBox writes a union of literals) becomes `enum: ['a', 'b']`;
 * beside other members (a nullable union: `anyOf: [{ const: 'a' }, { const: 'b' }, { type: 'null' }]`) the literals
 * become one enum member of the `anyOf`.
 */
function enumsForLiteralUnions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(enumsForLiteralUnions);
  if (typeof node !== 'object' || node === null) return node;
  const record = node as Record<string, unknown>;
  const anyOf = record.anyOf;
  if (Array.isArray(anyOf) && anyOf.length > 0) {
    const literals = anyOf.filter(isStringConst);
    const { anyOf: _anyOf, ...rest } = record;
    const values = literals.map((m) => m.const);
    if (literals.length === anyOf.length)
      return { ...(enumsForLiteralUnions(rest) as object), type: 'string', enum: values };
    if (literals.length >= 2) {
      const others = anyOf.filter((m) => !isStringConst(m)).map(enumsForLiteralUnions);
      return { ...(enumsForLiteralUnions(rest) as object), anyOf: [{ type: 'string', enum: values }, ...others] };
    }
  }
  // `Type.Enum([...])` writes a bare `enum`: a generator wants its type too
  const values = record.enum;
  if (record.type === undefined && Array.isArray(values) && values.every((v) => typeof v === 'string')) {
    return { type: 'string', ...record };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) out[key] = enumsForLiteralUnions(value);
  return out;
}

function isStringConst(member: unknown): member is { const: string } {
  return typeof member === 'object' && member !== null && typeof (member as { const?: unknown }).const === 'string';
}
