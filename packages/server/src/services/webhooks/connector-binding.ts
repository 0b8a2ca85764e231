/**
 * An endpoint bound to a connector (CONTRACT section 15) receives exactly its manifest's `events.subscribes_to`:
 * the manifest, not the endpoint row, is the filter (so a release that changes a manifest changes what its bound
 * endpoints receive, and nobody can widen or narrow it by PATCH). A connector that must verify signatures only takes
 * an endpoint whose signing profile it names (`ns.webhooks.<profile>.v1` in `supported_profiles`).
 */
import { acceptsSigningProfile, fieldError, signingProfilesOf, type WebhookSigningProfile } from '@aar/core';
import { bindableConnector } from '../connectors/bindable-connector.ts';
import { findConnector } from '../connectors/connector-catalogue.ts';

/** The filter a new endpoint bound to `connectorId` gets; refuses what the manifest forbids, naming the field. */
export function bindEndpointToConnector(
  connectorId: string,
  profile: WebhookSigningProfile,
  requested: readonly string[] | null,
): string[] {
  const manifest = bindableConnector(connectorId, '/connector_id');
  if (!acceptsSigningProfile(manifest, profile)) {
    const names = signingProfilesOf(manifest).map((p) => `\`${p}\``);
    throw fieldError(
      'reference_invalid',
      '/profile',
      `\`${connectorId}\` verifies every delivery and supports ${names.join(', ')}, not \`${profile}\``,
    );
  }
  const subscribed = manifest.events.subscribes_to;
  if (requested !== null) assertSubscriptions(connectorId, subscribed, requested);
  return [...subscribed];
}

/** A PATCH of `event_types` on a bound endpoint: only the manifest's own list (in any order) is accepted. */
export function assertConnectorEventTypes(connectorId: string, requested: readonly string[] | null): void {
  assertSubscriptions(connectorId, findConnector(connectorId)?.events.subscribes_to ?? [], requested);
}

/**
 * The filter of a bound endpoint: the manifest's list. Fail closed: a connector this release no longer ships
 * matches nothing (an empty filter), rather than falling back to every event.
 */
export function connectorFilter(connectorId: string): string[] {
  return [...(findConnector(connectorId)?.events.subscribes_to ?? [])];
}

function assertSubscriptions(connectorId: string, subscribed: readonly string[], requested: readonly string[] | null) {
  const same =
    requested !== null &&
    requested.length === new Set(subscribed).size &&
    requested.every((t) => subscribed.includes(t));
  if (!same) {
    throw fieldError(
      'reference_invalid',
      '/event_types',
      `an endpoint bound to \`${connectorId}\` receives exactly its \`events.subscribes_to\`: omit \`event_types\``,
    );
  }
}
