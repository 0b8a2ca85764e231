/** `ns.listing.*`: marketplace listings (CONTRACT section 15, `POST /v1/listings`). */
import { CONNECTOR_ID_PATTERN } from '../../connectors/connector-manifest.ts';
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, nullable, oneOf } from '../schema-parts.ts';

export const LISTING_EVENTS = [
  defineEventType({
    event_type: 'ns.listing.registered',
    description:
      'an administrator registers a marketplace listing (`POST /v1/listings`); the reference listings seeded at ' +
      'start are data of the release and emit none',
    subject_ref: { description: 'the listing, `ns:listing:<id>`', pattern: '^ns:listing:[A-Za-z0-9._-]{1,128}$' },
    reason_codes: ['listing_registered'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      kind: oneOf(['connector', 'agent', 'service']),
      publisher_tier: oneOf(['community', 'verified', 'certified']),
      pricing_model: oneOf(['free', 'usage', 'subscription', 'enterprise']),
      connector_id: nullable({ type: 'string', pattern: CONNECTOR_ID_PATTERN }),
      document_digest: {
        type: 'string',
        pattern: '^sha-256:[A-Za-z0-9_-]{43}$',
        description:
          'SHA-256 of the stored listing document (the registered listing signed by the service, RFC 8785 bytes): ' +
          'what the audit chain commits the listing to',
      },
    }),
  }),
];
