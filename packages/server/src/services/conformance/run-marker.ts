/**
 * Records what a request of a conformance run created (run-artifacts.ts): after a successful POST to one of the
 * creating routes, the id its answer names is marked with the run, before the answer leaves, so the runner never
 * sees a resource that is not yet marked. The mark is a second, small write after the resource's own unit; were the
 * process to die between the two, the resource would merely show in the default lists.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ARTIFACT_ROUTES, mayMarkForRun, recordRunArtifact, RUN_HEADER, runOfHeader } from './run-artifacts.ts';

export function registerRunMarker(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method !== 'POST' || reply.statusCode < 200 || reply.statusCode >= 300) return payload;
    const run = runOfHeader(req.headers[RUN_HEADER]);
    const route = ARTIFACT_ROUTES[req.routeOptions.url ?? ''];
    if (run === undefined || route === undefined || typeof payload !== 'string') return payload;
    let ref: unknown;
    try {
      ref = (JSON.parse(payload) as Record<string, unknown>)[route.member];
    } catch {
      return payload;
    }
    if (typeof ref !== 'string') return payload;
    if (await mayMarkForRun(ctx, req.credential, run)) await recordRunArtifact(ctx, run, route.kind, ref);
    return payload;
  });
}
