import { fieldError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { checkTargetAtRegistration } from './check-target.ts';
import { assertConnectorEventTypes } from './connector-binding.ts';
import { endpointView, eventTypesOf, urlOrigin, type WebhookEndpointView } from './endpoint-view.ts';
import { parseEventTypeFilter } from './event-type-filter.ts';
import { readEndpoint } from './read-endpoint.ts';
import { appendWebhookEvent } from './webhook-events.ts';

export interface UpdateEndpointInput {
  url?: string | undefined;
  /** null removes the filter (every event) */
  event_types?: string[] | null | undefined;
  /** null removes the description */
  description?: string | null | undefined;
}

/** PATCH: changes `url`, `event_types`, `description`. A new URL passes the same SSRF check as at registration. */
export async function updateEndpoint(
  ctx: AppContext,
  credential: Credential | null,
  endpointId: string,
  input: UpdateEndpointInput,
): Promise<WebhookEndpointView> {
  if (input.url === undefined && input.event_types === undefined && input.description === undefined) {
    throw fieldError('invalid_request', '', 'name at least one of `url`, `event_types`, `description`');
  }
  const eventTypes =
    input.event_types === undefined || input.event_types === null
      ? input.event_types
      : parseEventTypeFilter(input.event_types, '/event_types');
  if (input.url !== undefined) await checkTargetAtRegistration(ctx, input.url);
  const now = ctx.clock.now();
  const row = await ctx.writer.run(async (trx) => {
    const before = await readEndpoint(trx, endpointId);
    if (before.connector_id !== null && eventTypes !== undefined) {
      assertConnectorEventTypes(before.connector_id, eventTypes);
    }
    const changes: Record<string, string | null> = {};
    if (input.url !== undefined && input.url !== before.url) changes.url = input.url;
    if (eventTypes !== undefined) {
      const text = eventTypes === null ? null : JSON.stringify(eventTypes);
      if (text !== before.event_types) changes.event_types = text;
    }
    if (input.description !== undefined && input.description !== before.description) {
      changes.description = input.description;
    }
    // re-applying what the endpoint already has changes nothing and writes no event
    if (Object.keys(changes).length === 0) return before;
    const after = await trx
      .updateTable('webhook_endpoints')
      .set({ ...changes, updated_at: now.toISOString() })
      .where('endpoint_id', '=', endpointId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendWebhookEvent(
      trx,
      ctx,
      endpointId,
      actorOf(credential),
      'ns.webhook.endpoint_updated',
      'webhook_endpoint_updated',
      {
        changed: Object.keys(changes).sort(),
        url_origin: urlOrigin(after.url),
        event_types: eventTypesOf(after),
      },
    );
    return after;
  });
  return endpointView(row, now);
}
