import { signWebhookDelivery, type SignedWebhookDelivery } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { UnsignedEventEnvelope } from '../events/append-event.ts';
import { envelopesOf } from '../events/derived-envelope.ts';
import { signingSecretsOf, type WebhookEndpointRow } from './endpoint-view.ts';

/** The stored (unsigned) envelopes of these events, rebuilt as every reader sees them (derived-envelope.ts). */
export async function loadEnvelopes(
  ctx: AppContext,
  eventIds: readonly string[],
): Promise<Map<string, UnsignedEventEnvelope>> {
  const out = new Map<string, UnsignedEventEnvelope>();
  for (let i = 0; i < eventIds.length; i += 500) {
    const rows = await ctx.store.db
      .selectFrom('events')
      .select(['event_id', 'subject_ref', 'envelope', 'operation_ref'])
      .where('event_id', 'in', eventIds.slice(i, i + 500))
      .execute();
    for (const envelope of await envelopesOf(ctx.store.db, rows)) out.set(envelope.event_id, envelope);
  }
  return out;
}

/**
 * Signs one attempt at the time it is made (CONTRACT section 9): the envelope with the current service key
 * (section 4) in every profile, the Standard Webhooks signature over `{id}.{timestamp}.{body}` with the endpoint's
 * secret(s) or the service key. `webhook-id` is the event id on every attempt, replays included.
 */
export function signDelivery(
  ctx: AppContext,
  endpoint: WebhookEndpointRow,
  envelope: UnsignedEventEnvelope,
  now: Date,
): Promise<SignedWebhookDelivery> {
  const secrets = signingSecretsOf(endpoint, now);
  return signWebhookDelivery({
    profile: endpoint.profile,
    webhookId: envelope.event_id,
    timestamp: Math.floor(now.getTime() / 1000),
    envelope,
    signer: ctx.keys.current(),
    ...(endpoint.profile === 'shared_secret' ? { secrets } : {}),
  });
}
