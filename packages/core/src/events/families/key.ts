/** `ns.key.*`: the service's own Ed25519 signing keys (`aar keys rotate`). */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, id, subject } from '../schema-parts.ts';

export const KEY_EVENTS = [
  defineEventType({
    event_type: 'ns.key.rotated',
    description:
      'the service signing key is rotated (`aar keys rotate`): new documents are signed with the new key; the ' +
      'retired key stays in the JWKS with its `valid_until`',
    subject_ref: subject(['key'], 'the new current key'),
    reason_codes: ['signing_key_rotated'],
    principal_entity_id: 'never',
    actor_entity_id: 'sometimes',
    data_schema: closedObject({ retired_key_id: id('key'), current_key_id: id('key') }),
  }),
];
