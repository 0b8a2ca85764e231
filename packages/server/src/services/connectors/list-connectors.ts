import type { ConnectorManifest } from '@aar/core';
import { connectorCatalogue } from './connector-catalogue.ts';

export interface ConnectorFilter {
  family?: string | undefined;
  connector_type?: string | undefined;
  status?: string | undefined;
  /** a conformance or signing profile the connector names in `supported_profiles` */
  profile?: string | undefined;
}

/** The manifests matching every filter given (an absent filter matches all), ordered by `connector_id`. */
export function listConnectors(filter: ConnectorFilter): ConnectorManifest[] {
  return connectorCatalogue().filter(
    (m) =>
      (filter.family === undefined || m.category === filter.family) &&
      (filter.connector_type === undefined || m.connector_type === filter.connector_type) &&
      (filter.status === undefined || m.status === filter.status) &&
      (filter.profile === undefined || m.supported_profiles.includes(filter.profile)),
  );
}
