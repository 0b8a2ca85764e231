import { randomBytes } from 'node:crypto';
import { CONNECTOR_ID_PATTERN, fieldError, generateWebhookSecret } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { checkTargetAtRegistration } from './check-target.ts';
import { bindEndpointToConnector } from './connector-binding.ts';
import { endpointsChanged } from './endpoint-presence.ts';
import { endpointView, urlOrigin, type WebhookEndpointView } from './endpoint-view.ts';
import { parseEventTypeFilter } from './event-type-filter.ts';
import { newestEventSeq } from './newest-event-seq.ts';
import { ENDPOINT_ID_PREFIX } from './read-endpoint.ts';
import { appendWebhookEvent } from './webhook-events.ts';

export { CONNECTOR_ID_PATTERN } from '@aar/core';
/** bytes of a generated `whsec_` secret (Standard Webhooks: 24-64) */
const SECRET_BYTES = 32;

export interface CreateEndpointInput {
  url: string;
  profile: 'shared_secret' | 'asymmetric' | 'cose';
  event_types?: string[] | undefined;
  description?: string | undefined;
  connector_id?: string | undefined;
  /**
   * `disabled`: registered without receiving anything until `POST …/enable`, so a receiver can store the `whsec_`
   * secret first. Default `enabled`.
   */
  state?: 'enabled' | 'disabled' | undefined;
}

export type CreatedEndpoint = WebhookEndpointView & { secret?: string };

/**
 * Registers an endpoint. It receives the events committed after it was created (its cursor starts at the newest
 * event; older ones: replay). The `whsec_` secret of a `shared_secret` endpoint is in this response only.
 * Created `disabled` (reason `admin`), nothing is queued for it: enabling moves its cursor to the newest event, so it
 * receives the events committed from its enabling on, like any enabled-again endpoint (earlier ones: replay).
 */
export async function createEndpoint(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateEndpointInput,
): Promise<CreatedEndpoint> {
  let eventTypes = input.event_types === undefined ? null : parseEventTypeFilter(input.event_types, '/event_types');
  if (input.connector_id !== undefined && !new RegExp(CONNECTOR_ID_PATTERN).test(input.connector_id)) {
    throw fieldError('invalid_id', '/connector_id', 'must be an id of the form `ns:connector:<family>:<name>`');
  }
  if (input.connector_id !== undefined) {
    eventTypes = bindEndpointToConnector(input.connector_id, input.profile, eventTypes);
  }
  await checkTargetAtRegistration(ctx, input.url);
  const secret =
    input.profile === 'shared_secret' ? generateWebhookSecret(new Uint8Array(randomBytes(SECRET_BYTES))) : null;
  const state = input.state ?? 'enabled';
  const endpointId = `${ENDPOINT_ID_PREFIX}${ctx.newUuid()}`;
  const now = ctx.clock.now();
  const row = await ctx.writer.run(async (trx) => {
    const cursorSeq = await newestEventSeq(trx);
    const inserted = await trx
      .insertInto('webhook_endpoints')
      .values({
        endpoint_id: endpointId,
        url: input.url,
        profile: input.profile,
        event_types: eventTypes === null ? null : JSON.stringify(eventTypes),
        description: input.description ?? null,
        connector_id: input.connector_id ?? null,
        state,
        disabled_reason: state === 'disabled' ? 'admin' : null,
        secret,
        previous_secret: null,
        previous_secret_until: null,
        cursor_seq: cursorSeq,
        failing_since: null,
        lease_owner: null,
        lease_until: null,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendWebhookEvent(
      trx,
      ctx,
      endpointId,
      actorOf(credential),
      'ns.webhook.endpoint_created',
      'webhook_endpoint_registered',
      {
        profile: input.profile,
        url_origin: urlOrigin(input.url),
        event_types: eventTypes,
        connector_id: input.connector_id ?? null,
        new_state: state,
      },
    );
    return inserted;
  });
  endpointsChanged(ctx);
  const view: CreatedEndpoint = endpointView(row, now);
  if (secret !== null) view.secret = secret;
  return view;
}
