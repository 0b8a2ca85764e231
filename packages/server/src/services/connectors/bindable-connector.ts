/**
 * The connector a credential or a webhook endpoint is being bound to. Fail closed: an id outside the catalogue is
 * refused (a typo would otherwise bind to nothing and enforce nothing), and so is a `deprecated` connector (no new
 * bindings; existing ones keep working).
 */
import { fieldError, type ConnectorManifest } from '@aar/core';
import { findConnector } from './connector-catalogue.ts';

export function bindableConnector(connectorId: string, path: string): ConnectorManifest {
  const manifest = findConnector(connectorId);
  if (manifest === undefined) {
    throw fieldError(
      'reference_not_found',
      path,
      `\`${connectorId}\` is not in the connector catalogue (GET /v1/connectors)`,
    );
  }
  if (manifest.status === 'deprecated') {
    throw fieldError('reference_invalid', path, `\`${connectorId}\` is deprecated: it takes no new bindings`);
  }
  return manifest;
}
