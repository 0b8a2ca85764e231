/**
 * `ns.webhook.*`: webhook endpoints and their deliveries (CONTRACT section 9). Envelopes carry only a URL's origin:
 * a path or query may hold a receiver's secret.
 */
import { CONNECTOR_ID_PATTERN } from '../../connectors/connector-manifest.ts';
import { defineEventType, type EnvelopeMemberPresence } from '../event-type-definition.ts';
import { closedObject, COUNT, id, nullable, oneOf, stateChange, subject, TIMESTAMP } from '../schema-parts.ts';

const ENDPOINT = subject(['webhook_endpoint'], 'the endpoint, `ns:webhook_endpoint:<uuid>`');
const URL_ORIGIN = { type: 'string', minLength: 1, description: 'the origin of the endpoint URL, never its path' };
const FILTER = nullable({
  type: 'array',
  items: { type: 'string', pattern: '^ns\\.[a-z][a-z0-9_]*\\.(\\*|[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)?)$' },
  description: 'exact types and `ns.<family>.*`; null: every event',
});

function endpointEvent(
  name: string,
  reasons: string[],
  description: string,
  data: Record<string, Record<string, unknown>>,
  actor: EnvelopeMemberPresence = 'always',
) {
  return defineEventType({
    event_type: `ns.webhook.${name}`,
    description,
    subject_ref: ENDPOINT,
    reason_codes: reasons,
    principal_entity_id: 'never',
    actor_entity_id: actor,
    data_schema: closedObject(data),
  });
}

export const WEBHOOK_EVENTS = [
  endpointEvent(
    'endpoint_created',
    ['webhook_endpoint_registered'],
    'a webhook endpoint is registered (`POST /v1/webhook-endpoints`), `enabled` or, when asked, `disabled`',
    {
      profile: oneOf(['shared_secret', 'asymmetric', 'cose']),
      url_origin: URL_ORIGIN,
      event_types: FILTER,
      connector_id: nullable({ type: 'string', pattern: CONNECTOR_ID_PATTERN }),
      new_state: oneOf(['enabled', 'disabled']),
    },
  ),
  endpointEvent(
    'endpoint_updated',
    ['webhook_endpoint_updated'],
    'an endpoint\u2019s `url`, `event_types` or `description` changes (`PATCH /v1/webhook-endpoints/{id}`)',
    {
      changed: {
        type: 'array',
        items: oneOf(['description', 'event_types', 'url']),
        minItems: 1,
        uniqueItems: true,
        description: 'the members that changed, sorted',
      },
      url_origin: URL_ORIGIN,
      event_types: FILTER,
    },
  ),
  endpointEvent(
    'endpoint_deleted',
    ['webhook_endpoint_deleted'],
    'an endpoint is deleted (`DELETE /v1/webhook-endpoints/{id}`): nothing more is delivered to it',
    stateChange(['enabled', 'disabled'], ['deleted']),
  ),
  endpointEvent(
    'secret_rotated',
    ['webhook_secret_rotated'],
    'a `shared_secret` endpoint\u2019s secret is rotated (`POST /v1/webhook-endpoints/{id}/rotate-secret`): the ' +
      'old secret signs beside the new one until `previous_secret_expires_at`',
    { previous_secret_expires_at: TIMESTAMP },
  ),
  endpointEvent(
    'endpoint_enabled',
    ['webhook_endpoint_enabled'],
    'a disabled endpoint is enabled again (`POST /v1/webhook-endpoints/{id}/enable`)',
    stateChange(['disabled'], ['enabled']),
  ),
  endpointEvent(
    'endpoint_disabled',
    ['admin_disabled_endpoint', 'endpoint_gone', 'endpoint_failing'],
    'an endpoint is disabled: by an admin (`POST /v1/webhook-endpoints/{id}/disable`), because it answered 410 ' +
      'Gone, or because it has failed for 5 days; nothing is delivered to it until it is enabled',
    {
      ...stateChange(['enabled'], ['disabled']),
      disabled_reason: oneOf(['admin', 'gone', 'failing']),
      failing_since: nullable({ ...TIMESTAMP, description: 'the first failure of the current run of failures' }),
    },
    'sometimes',
  ),
  endpointEvent(
    'delivery_exhausted',
    ['delivery_exhausted'],
    'the last retry of an event\u2019s delivery to an endpoint failed (the retry schedule ends after about 3 days): ' +
      'it is not sent again unless replayed (`POST /v1/webhook-endpoints/{id}/replay`)',
    {
      endpoint_id: id('webhook_endpoint'),
      event_id: id('event', 'the event that could not be delivered'),
      event_type: { type: 'string', pattern: '^ns\\.[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$' },
      attempts: { ...COUNT, minimum: 1 },
    },
    'never',
  ),
];
