/**
 * Leases on endpoints: one instance works an endpoint at a time, so its first attempts go out in commit order and
 * no attempt is made twice. A lease is a row update in a short transaction (not a lock held while delivering: an
 * open transaction would hold back the events horizon of every reader on PostgreSQL). On PostgreSQL, instances
 * claiming at once skip each other's rows (`FOR UPDATE SKIP LOCKED`); SQLite has a single writer. A lease that is
 * not renewed (the instance died) expires after `leaseMs` and another instance takes the endpoint over: what the
 * dead one had in flight is attempted again, with the same `webhook-id`.
 */
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { WebhookEndpointRow } from './endpoint-view.ts';

/** The newest event seq every reader may see (list-events' horizon rule on PostgreSQL). */
export async function visibleTopSeq(ctx: AppContext): Promise<number> {
  const horizon = ctx.store.dialect === 'postgres' ? sql`where tx_id < pg_snapshot_xmin(pg_current_snapshot())` : sql``;
  const row = (
    await sql<{ seq: number | string | null }>`select max(seq) as seq from events ${horizon}`.execute(ctx.store.db)
  ).rows[0];
  return Number(row?.seq ?? 0);
}

/**
 * Leases up to `limit` enabled endpoints that have work (events past their cursor, or attempts due) and that no
 * live lease holds, leaving out `exclude` (those this instance works already).
 */
export async function claimEndpoints(
  ctx: AppContext,
  owner: string,
  leaseMs: number,
  limit: number,
  exclude: readonly string[],
): Promise<WebhookEndpointRow[]> {
  if (limit <= 0) return [];
  const now = ctx.clock.now();
  const nowIso = now.toISOString();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  const top = await visibleTopSeq(ctx);
  const skipLocked = ctx.store.dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const notMine = exclude.length === 0 ? sql`` : sql`and e.endpoint_id not in (${sql.join(exclude)})`;
  const result = await sql<WebhookEndpointRow>`
    update webhook_endpoints set lease_owner = ${owner}, lease_until = ${until}
    where seq in (
      select e.seq from webhook_endpoints e
      where e.state = 'enabled'
        and (e.lease_until is null or e.lease_until < ${nowIso})
        ${notMine}
        and (e.cursor_seq < ${top} or exists (
          select 1 from webhook_attempts a
          where a.endpoint_id = e.endpoint_id and a.status = 'pending' and a.next_attempt_at <= ${nowIso}))
      order by e.seq
      limit ${limit}
      ${skipLocked})
    returning *`.execute(ctx.store.db);
  return result.rows.map((r) => ({ ...r, seq: Number(r.seq), cursor_seq: Number(r.cursor_seq) }));
}

/** Extends the lease and reads the endpoint afresh; undefined when the lease is lost or the endpoint gone. */
export async function renewLease(
  ctx: AppContext,
  endpointId: string,
  owner: string,
  leaseMs: number,
): Promise<WebhookEndpointRow | undefined> {
  const until = new Date(ctx.clock.now().getTime() + leaseMs).toISOString();
  return ctx.store.db
    .updateTable('webhook_endpoints')
    .set({ lease_until: until })
    .where('endpoint_id', '=', endpointId)
    .where('lease_owner', '=', owner)
    .returningAll()
    .executeTakeFirst();
}

export async function releaseLease(ctx: AppContext, endpointId: string, owner: string): Promise<void> {
  await ctx.store.db
    .updateTable('webhook_endpoints')
    .set({ lease_owner: null, lease_until: null })
    .where('endpoint_id', '=', endpointId)
    .where('lease_owner', '=', owner)
    .execute();
}
