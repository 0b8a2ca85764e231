import type { Selectable } from 'kysely';
import type { WebhookEndpointsTable } from '../../store/schema.ts';
import { connectorFilter } from './connector-binding.ts';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

/** What the API shows of an endpoint: never a secret, only whether a rotated one still signs and until when. */
export interface WebhookEndpointView {
  endpoint_id: string;
  url: string;
  profile: WebhookEndpointRow['profile'];
  event_types: string[] | null;
  description: string | null;
  connector_id: string | null;
  state: WebhookEndpointRow['state'];
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export function endpointView(row: WebhookEndpointRow, now: Date): WebhookEndpointView {
  const previousLive = row.previous_secret_until !== null && Date.parse(row.previous_secret_until) > now.getTime();
  return {
    endpoint_id: row.endpoint_id,
    url: row.url,
    profile: row.profile,
    event_types: eventTypesOf(row),
    description: row.description,
    connector_id: row.connector_id,
    state: row.state,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at: previousLive ? row.previous_secret_until : null,
    failing_since: row.failing_since,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The endpoint's filter; a connector-bound endpoint's is its manifest's `events.subscribes_to` (connector-binding). */
export function eventTypesOf(row: Pick<WebhookEndpointRow, 'event_types' | 'connector_id'>): string[] | null {
  if (row.connector_id !== null) return connectorFilter(row.connector_id);
  return row.event_types === null ? null : (JSON.parse(row.event_types) as string[]);
}

/** The secrets that sign a delivery now: the current one, and the rotated-out one during its 24 h overlap. */
export function signingSecretsOf(row: WebhookEndpointRow, now: Date): string[] {
  if (row.secret === null) return [];
  const previousLive =
    row.previous_secret !== null &&
    row.previous_secret_until !== null &&
    Date.parse(row.previous_secret_until) > now.getTime();
  return previousLive ? [row.secret, row.previous_secret!] : [row.secret];
}

/** The URL's origin, for events and logs: a path or query may carry a receiver's token. */
export function urlOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}
