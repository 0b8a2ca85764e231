/**
 * Prometheus metrics, in a registry per app (never prom-client's global one: several apps share a test process).
 * `route` is the route pattern (`/v1/grants/:id`), never the raw URL: ids in URLs would make unbounded series.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const registries = new WeakMap<object, Registry>();
const LABELS = ['method', 'route', 'status_code'] as const;
const UNMATCHED_ROUTE = 'unmatched';

export function registerMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'aar_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: LABELS,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'aar_http_request_duration_seconds',
    help: 'Time from request start to response end, by method, route pattern and status code',
    labelNames: LABELS,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // callback form: nothing to wait for, so no promise and no microtask hop per response
  app.addHook('onResponse', (request, reply, done) => {
    try {
      const labels = { method: request.method, route: routeLabel(request), status_code: String(reply.statusCode) };
      requests.inc(labels);
      duration.observe(labels, reply.elapsedTime / 1000);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });

  app.get(
    '/metrics',
    {
      config: { public: true, rateLimit: false },
      schema: {
        summary: 'Prometheus metrics',
        operationId: 'getMetrics',
        description:
          'Request counts and latency histograms by method, route template and status, with the Node.js process and ' +
          'service metrics, in the Prometheus text format. Labels carry route templates, never ids or request data. ' +
          'Never rate limited; restrict it at the network edge if it must not be public.',
        tags: ['operations'],
        produces: ['text/plain'],
        response: { 200: { description: 'Prometheus text exposition format', type: 'string' } },
      },
    },
    async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  );

  registries.set(app, registry);
  return registry;
}

/** The app's registry, from the app or any plugin scope inside it, for services that add their own metrics. */
export function metricsRegistryOf(app: FastifyInstance): Registry | undefined {
  // Fastify scopes are created with Object.create(parent): walk up to the instance the gateway was given.
  for (let scope: object | null = app; scope !== null; scope = Object.getPrototypeOf(scope) as object | null) {
    const registry = registries.get(scope);
    if (registry) return registry;
  }
  return undefined;
}

function routeLabel(request: FastifyRequest): string {
  if (request.is404) return UNMATCHED_ROUTE;
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}
