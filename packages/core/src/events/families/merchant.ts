/** `ns.merchant.*`: merchants authorize decisions check against (POST /v1/merchants). */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, id, subject } from '../schema-parts.ts';

export const MERCHANT_EVENTS = [
  defineEventType({
    event_type: 'ns.merchant.created',
    description: 'a merchant is registered with its category and jurisdiction (`POST /v1/merchants`)',
    subject_ref: subject(['merchant'], 'the merchant, `ns:merchant:<id>`'),
    reason_codes: ['merchant_registered'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      merchant_id: id('merchant_local', 'the plain merchant id, as `resource.merchant_id` names it'),
      category: {
        type: 'string',
        pattern: '^([0-9]{4}|[a-z][a-z0-9_]{0,63})$',
        description: 'an MCC or a named category',
      },
      jurisdiction: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' },
    }),
  }),
];
