/**
 * The events webhook endpoints emit (docs/events.md): every change of an endpoint, and what delivery does on its
 * own (a delivery exhausted, an endpoint disabled by a 410 or by failing for 5 days). Subject: the endpoint id.
 * No URL path, query or secret ever enters an envelope: only the URL's origin.
 */
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { appendEvent } from '../events/append-event.ts';

export type WebhookEventType =
  | 'ns.webhook.endpoint_created'
  | 'ns.webhook.endpoint_updated'
  | 'ns.webhook.endpoint_deleted'
  | 'ns.webhook.secret_rotated'
  | 'ns.webhook.endpoint_enabled'
  | 'ns.webhook.endpoint_disabled'
  | 'ns.webhook.delivery_exhausted';

export async function appendWebhookEvent(
  trx: Transaction<Database>,
  ctx: AppContext,
  endpointId: string,
  actor: string | null,
  eventType: WebhookEventType,
  reasonCode: string,
  data: Record<string, unknown>,
): Promise<void> {
  await appendEvent(trx, ctx, {
    event_type: eventType,
    actor_entity_id: actor,
    principal_entity_id: null,
    subject_ref: endpointId,
    reason_code: reasonCode,
    data,
  });
}
