/** `ns.card_token.*`: network tokens bound to a principal (POST /v1/card-tokens, suspend, activate). */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, nullable, stateChange, subject } from '../schema-parts.ts';

const CARD_TOKEN = subject(['card_token'], 'the card token');

export const CARD_TOKEN_EVENTS = [
  defineEventType({
    event_type: 'ns.card_token.created',
    description:
      'a network token is bound to its principal (`POST /v1/card-tokens`); erasure of the principal later sets ' +
      '`last4` to null and `erased` to true in the stored envelope',
    subject_ref: CARD_TOKEN,
    reason_codes: ['card_token_bound'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject(
      {
        network: nullable({ type: 'string', pattern: '^[a-z0-9_-]{1,32}$' }),
        last4: nullable({ type: 'string', pattern: '^[0-9]{4}$' }),
        erased: { const: true, description: 'present once the principal was erased' },
      },
      ['erased'],
    ),
  }),
  defineEventType({
    event_type: 'ns.card_token.suspended',
    description:
      'a card token is suspended (`POST /v1/card-tokens/{id}/suspend`), or erased with its principal ' +
      '(`entity_erased`): purchases with it are denied',
    subject_ref: CARD_TOKEN,
    reason_codes: ['card_token_suspended', 'entity_erased'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject(stateChange(['active'], ['suspended'])),
  }),
  defineEventType({
    event_type: 'ns.card_token.activated',
    description: 'a suspended card token is activated again (`POST /v1/card-tokens/{id}/activate`)',
    subject_ref: CARD_TOKEN,
    reason_codes: ['card_token_activated'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject(stateChange(['suspended'], ['active'])),
  }),
];
