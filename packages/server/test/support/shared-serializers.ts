/**
 * Response serializers shared by every app a test process builds (buildApp's `buildSerializer`): compiling them
 * (fast-json-stringify, one per route and status) is the largest part of building an app, ~40 % of a test runtime's
 * start, and a test file starts several. A serializer is a pure function of its schema, the external schemas and
 * the serializer options, so the one compiled for an identical (options, schema) is the same function: it is reused,
 * keyed by their JSON text. The request validators are shared likewise (shared-validators.ts).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<Factory>>;

const fastifyDefault = SerializerSelector();
const pools = new Map<string, Map<string, Serializer>>();

export const sharedSerializers: Factory = (externalSchemas, options) => {
  const compile = fastifyDefault(externalSchemas, options);
  const poolKey = JSON.stringify([externalSchemas ?? null, options ?? null]);
  let pool = pools.get(poolKey);
  if (!pool) pools.set(poolKey, (pool = new Map()));
  const serializers = pool;
  return (route) => {
    const key = JSON.stringify(route.schema ?? null);
    let serializer = serializers.get(key);
    if (!serializer) {
      serializer = compile(route);
      serializers.set(key, serializer);
    }
    return serializer;
  };
};
