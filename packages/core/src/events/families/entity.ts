/** `ns.entity.*`: persons, organisations and agents (POST/DELETE /v1/entities, suspend, activate). */
import { defineEventType } from '../event-type-definition.ts';
import {
  BOOLEAN,
  closedObject,
  COUNT,
  nullable,
  oneOf,
  stateChange,
  subject,
  TIMESTAMP,
  type JsonSchema,
} from '../schema-parts.ts';

const ENTITY = subject(['entity'], 'the entity');
const ENTITY_TYPE = oneOf(['person', 'organisation', 'agent']);

const ATTESTATION_ID: JsonSchema = {
  type: 'string',
  pattern: '^ns:agent_metadata:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  description: 'the accepted attestation, `ns:agent_metadata:<uuid>`',
};

export const ENTITY_EVENTS = [
  defineEventType({
    event_type: 'ns.entity.metadata_attested',
    description:
      'an agent\u2019s metadata attestation (model, software version, operator), signed with the agent\u2019s own ' +
      'registered key, is accepted and becomes its current metadata (`POST /v1/entities/{id}/metadata-attestations`, ' +
      'preview); ids and digests only, the attested values stay in the document',
    subject_ref: subject(['entity'], 'the agent'),
    reason_codes: ['agent_metadata_attested'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      attestation_id: ATTESTATION_ID,
      digest: {
        type: 'string',
        pattern: '^sha-256:[A-Za-z0-9_-]{43}$',
        description: 'SHA-256 of the RFC 8785 bytes of the signed document',
      },
      issued_at: TIMESTAMP,
    }),
  }),
  defineEventType({
    event_type: 'ns.entity.created',
    description: 'an entity is registered (`POST /v1/entities`); display names stay out of events',
    subject_ref: ENTITY,
    reason_codes: ['entity_registered'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    data_schema: closedObject(
      {
        type: ENTITY_TYPE,
        has_public_key: BOOLEAN,
        key_thumbprint: nullable({
          type: 'string',
          pattern: '^[A-Za-z0-9_-]{43}$',
          description: 'RFC 7638 SHA-256 thumbprint of the registered key; null without a key',
        }),
        time_zone: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description: 'IANA time zone of the principal\u2019s local time rule packs read; absent when none was given',
        },
      },
      ['time_zone'],
    ),
  }),
  defineEventType({
    event_type: 'ns.entity.suspended',
    description: 'an entity is suspended (`POST /v1/entities/{id}/suspend`): its decisions are denied from now on',
    subject_ref: ENTITY,
    reason_codes: ['entity_suspended'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    data_schema: closedObject(stateChange(['active'], ['suspended'])),
  }),
  defineEventType({
    event_type: 'ns.entity.activated',
    description: 'a suspended entity is activated again (`POST /v1/entities/{id}/activate`)',
    subject_ref: ENTITY,
    reason_codes: ['entity_activated'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    data_schema: closedObject(stateChange(['suspended'], ['active'])),
  }),
  defineEventType({
    event_type: 'ns.entity.tombstoned',
    description:
      'an entity is erased (`DELETE /v1/entities/{id}`, right to erasure): its personal data is removed and, for a ' +
      'principal, its card tokens are erased and suspended and its credentials revoked (each with its own ' +
      '`ns.card_token.suspended` / `ns.credential.revoked`, reason `entity_erased`)',
    subject_ref: ENTITY,
    reason_codes: ['entity_erased'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    data_schema: closedObject({
      type: ENTITY_TYPE,
      ...stateChange(['active', 'suspended'], ['tombstoned']),
      card_tokens_erased: COUNT,
      credentials_revoked: COUNT,
    }),
  }),
];
