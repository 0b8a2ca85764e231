/**
 * Whether any webhook endpoint is enabled: the webhook worker asks before claiming (claim-endpoints.ts, two round
 * trips), so that its wakes (after every local commit, at every NOTIFY of another instance's events) cost nothing
 * while no endpoint could have work. The worker re-reads the answer at least every `pollMs` (an endpoint created
 * or enabled by another process is found then) and drops it at once when this process creates or enables one:
 * `endpointsChanged` runs after that commit and wakes the worker, which then claims (webhook-worker.ts).
 */
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';

/** listeners per store (one store per AppContext; several contexts in one test process) */
const listeners = new WeakMap<object, Set<() => void>>();

/** Calls `listener` after this process committed an endpoint that may now have work; returns its remover. */
export function onEndpointsChanged(ctx: AppContext, listener: () => void): () => void {
  let set = listeners.get(ctx.store);
  if (!set) listeners.set(ctx.store, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** After the commit of an endpoint created or enabled: the worker must not trust an earlier "none". */
export function endpointsChanged(ctx: AppContext): void {
  for (const listener of listeners.get(ctx.store) ?? []) listener();
}

/** The condition claimEndpoints starts from: some endpoint is enabled (one round trip). */
export async function anyEnabledEndpoint(ctx: AppContext): Promise<boolean> {
  const { rows } = await sql<{ one: number }>`
    select 1 as one from webhook_endpoints where state = 'enabled' limit 1`.execute(ctx.store.db);
  return rows.length > 0;
}
