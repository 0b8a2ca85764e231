/**
 * `ns.memory.*` (CONTRACT section 22, issue 30): governed agent memory records: written, erased by the principal,
 * purged when their retention ends. Ids, classifications and digests only: never the content (it is what erasure
 * removes; an event delivered to a webhook or kept in the feed would outlive it).
 */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, COUNT, id, nullable, oneOf, TIMESTAMP, type JsonSchema } from '../schema-parts.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const RECORD_ID = `ns:memory_record:${UUID}`;
const TOMBSTONE_ID = `ns:memory_tombstone:${UUID}`;
const recordId: JsonSchema = { type: 'string', pattern: `^${RECORD_ID}$`, description: 'the memory record' };
const tombstoneId: JsonSchema = { type: 'string', pattern: `^${TOMBSTONE_ID}$`, description: 'its tombstone' };
const digest = (description: string): JsonSchema => ({ type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description });
const CLASSIFICATION = oneOf(['public', 'internal', 'confidential', 'restricted'], 'fixes the retention');

/** the members of a tombstone event: the tombstone's place in the principal's chain */
const ENDED = {
  memory_record_id: recordId,
  tombstone_id: tombstoneId,
  agent_entity_id: id('entity', 'the agent that wrote it'),
  classification: CLASSIFICATION,
  record_digest: digest('base64url SHA-256 of the signed record (RFC 8785), which the tombstone names'),
  tombstone_digest: digest('base64url SHA-256 of the signed tombstone (RFC 8785)'),
  sequence: { ...COUNT, minimum: 1, description: 'its place in the principal\u2019s tombstone chain, from 1' },
  previous_tombstone_digest: nullable(digest('the digest of the tombstone before it in the chain')),
};

export const MEMORY_EVENTS = [
  defineEventType({
    event_type: 'ns.memory.written',
    description:
      'an agent wrote a signed memory record under its grant (`POST /v1/memory/records`); the content stays in the ' +
      'service, bound by `content_digest`',
    subject_ref: { description: 'the memory record, `ns:memory_record:<uuid>`', pattern: `^${RECORD_ID}$` },
    reason_codes: ['memory_written'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      memory_record_id: recordId,
      agent_entity_id: id('entity', 'the agent that wrote it'),
      grant_id: id('grant', 'the grant it wrote under'),
      classification: CLASSIFICATION,
      content_digest: digest('base64url SHA-256 of the salted content (docs/memory.md)'),
      record_digest: digest('base64url SHA-256 of the signed record (RFC 8785)'),
      retain_until: { ...TIMESTAMP, description: 'when the retention purge removes the content' },
    }),
  }),
  defineEventType({
    event_type: 'ns.memory.erased',
    description:
      'the principal (or an admin) erased a memory record (`DELETE /v1/memory/records/{id}`): the content is gone, ' +
      'a signed tombstone chained to the principal\u2019s previous one stays',
    subject_ref: { description: 'the memory record', pattern: `^${RECORD_ID}$` },
    reason_codes: ['memory_erased'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject(ENDED),
  }),
  defineEventType({
    event_type: 'ns.memory.purged',
    description:
      'a memory record\u2019s retention (fixed by its classification) ended: the retention worker purged the content ' +
      'and left a signed tombstone chained to the principal\u2019s previous one',
    subject_ref: { description: 'the memory record', pattern: `^${RECORD_ID}$` },
    reason_codes: ['memory_retention_expired'],
    principal_entity_id: 'always',
    actor_entity_id: 'never',
    data_schema: closedObject(ENDED),
  }),
];
