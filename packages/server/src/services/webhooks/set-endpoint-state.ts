import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { Database } from '../../store/index.ts';
import { actorOf } from '../actor-of.ts';
import { endpointsChanged } from './endpoint-presence.ts';
import { endpointView, type WebhookEndpointRow, type WebhookEndpointView } from './endpoint-view.ts';
import { newestEventSeq } from './newest-event-seq.ts';
import { readEndpoint } from './read-endpoint.ts';
import { appendWebhookEvent } from './webhook-events.ts';

/** Why an endpoint is disabled: `admin` (the API), `gone` (it answered 410), `failing` (5 days of failures). */
export type DisabledReason = 'admin' | 'gone' | 'failing';

const REASON_CODE: Readonly<Record<DisabledReason, string>> = {
  admin: 'admin_disabled_endpoint',
  gone: 'endpoint_gone',
  failing: 'endpoint_failing',
};

/**
 * Disables an endpoint inside a write unit, with its `ns.webhook.endpoint_disabled` event. Nothing is delivered to
 * a disabled endpoint; its pending attempts wait. Disabling a disabled endpoint changes nothing.
 */
export async function disableEndpointIn(
  trx: Transaction<Database>,
  ctx: AppContext,
  before: WebhookEndpointRow,
  actor: string | null,
  reason: DisabledReason,
): Promise<WebhookEndpointRow> {
  if (before.state === 'disabled') return before;
  const after = await trx
    .updateTable('webhook_endpoints')
    .set({ state: 'disabled', disabled_reason: reason, updated_at: ctx.clock.now().toISOString() })
    .where('endpoint_id', '=', before.endpoint_id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await appendWebhookEvent(trx, ctx, before.endpoint_id, actor, 'ns.webhook.endpoint_disabled', REASON_CODE[reason], {
    previous_state: 'enabled',
    new_state: 'disabled',
    disabled_reason: reason,
    failing_since: before.failing_since,
  });
  return after;
}

export async function disableEndpoint(
  ctx: AppContext,
  credential: Credential | null,
  endpointId: string,
): Promise<WebhookEndpointView> {
  const row = await ctx.writer.run(async (trx) =>
    disableEndpointIn(trx, ctx, await readEndpoint(trx, endpointId), actorOf(credential), 'admin'),
  );
  return endpointView(row, ctx.clock.now());
}

/**
 * Enables an endpoint. Its pending attempts resume; the events committed while it was disabled are NOT queued (its
 * cursor moves to the newest event): ask for them with replay. The failure clock restarts.
 */
export async function enableEndpoint(
  ctx: AppContext,
  credential: Credential | null,
  endpointId: string,
): Promise<WebhookEndpointView> {
  const row = await ctx.writer.run(async (trx) => {
    const before = await readEndpoint(trx, endpointId);
    if (before.state === 'enabled') return before;
    const cursorSeq = await newestEventSeq(trx);
    const after = await trx
      .updateTable('webhook_endpoints')
      .set({
        state: 'enabled',
        disabled_reason: null,
        failing_since: null,
        cursor_seq: cursorSeq,
        updated_at: ctx.clock.now().toISOString(),
      })
      .where('endpoint_id', '=', endpointId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendWebhookEvent(
      trx,
      ctx,
      endpointId,
      actorOf(credential),
      'ns.webhook.endpoint_enabled',
      'webhook_endpoint_enabled',
      {
        previous_state: 'disabled',
        new_state: 'enabled',
      },
    );
    return after;
  });
  endpointsChanged(ctx);
  return endpointView(row, ctx.clock.now());
}
