/**
 * Request validators shared by every app a test process builds (buildApp's `buildValidator`), as
 * shared-serializers.ts does for the serializers: compiling them (Ajv, one per route and request part) is the other
 * large part of building an app. They are Fastify's own (@fastify/ajv-compiler with the app's Ajv options, one Ajv
 * per (external schemas, options) as Fastify pools them), compiled once per identical (options, part, schema) and
 * then reused; a validator is a pure function of those, called synchronously, so apps sharing it cannot interfere.
 * Invariant: the apps validate exactly as with Fastify's default compiler. The one difference a custom compiler
 * makes is that Fastify no longer lower-cases a headers schema's names for it (HTTP header names reach the
 * validator in lower case): a headers schema naming anything in upper case is refused here, loudly, so that no test
 * ever passes or fails on a header schema that production would read otherwise.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

type Factory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;
interface RouteSchema {
  schema?: unknown;
  method?: string;
  url?: string;
  httpPart?: string;
}
type Validator = (data: unknown) => unknown;
type Compile = (route: RouteSchema) => Validator;

const fastifyDefault = AjvCompiler() as unknown as (externalSchemas: unknown, options: unknown) => Compile;
const pools = new Map<string, Map<string, Validator>>();

function shareValidators(externalSchemas: unknown, options: unknown): Compile {
  const compile = fastifyDefault(externalSchemas, options);
  const poolKey = JSON.stringify([externalSchemas ?? null, (options as { customOptions?: unknown }).customOptions]);
  let pool = pools.get(poolKey);
  if (!pool) pools.set(poolKey, (pool = new Map()));
  const validators = pool;
  return (route) => {
    if (route.httpPart === 'headers') assertLowerCaseNames(route.schema, `${route.method} ${route.url}`);
    const key = `${route.httpPart ?? ''}\n${JSON.stringify(route.schema ?? null)}`;
    let validator = validators.get(key);
    if (!validator) {
      validator = compile(route);
      validators.set(key, validator);
    }
    return validator;
  };
}

export const sharedValidators = shareValidators as unknown as Factory;

const NAMED = new Set(['properties', 'dependencies', 'dependentSchemas', 'dependentRequired']);

function assertLowerCaseNames(schema: unknown, route: string): void {
  if (Array.isArray(schema)) return schema.forEach((s) => assertLowerCaseNames(s, route));
  if (typeof schema !== 'object' || schema === null) return;
  for (const [key, value] of Object.entries(schema)) {
    const names =
      key === 'required' && Array.isArray(value)
        ? value
        : NAMED.has(key) && typeof value === 'object' && value !== null
          ? Object.keys(value)
          : [];
    const upper = names.find((n) => typeof n === 'string' && n !== n.toLowerCase());
    if (upper !== undefined) {
      throw new Error(
        `${route}: the headers schema names \`${String(upper)}\`: write header names in lower case (shared-validators.ts)`,
      );
    }
    assertLowerCaseNames(value, route);
  }
}
