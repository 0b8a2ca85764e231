/**
 * JSON Schemas (2020-12) of the `ns.webhook.v1` envelope (SPEC "Envelope", CONTRACT section 9): the generic one, and
 * one per event type with its `event_type`, `reason_code`s, `subject_ref` form, principal and actor, and `data`.
 * What JSON Schema cannot say is stated here and checked by the tests: `delivery.idempotency_key` equals
 * `event_id`, and the signature verifies with the JWKS key `signature.key_id` over the envelope without `signature`.
 */
import { RULE_REASON_PATTERN, type EnvelopeMemberPresence, type EventTypeDefinition } from './event-type-definition.ts';
import { ID_PATTERNS, TIMESTAMP, type JsonSchema } from './schema-parts.ts';

export const ENVELOPE_SCHEMA_NAME = 'ns.webhook.v1';
const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

const SIGNATURE: JsonSchema = {
  type: 'object',
  properties: {
    algorithm: { const: 'ed25519' },
    key_id: { type: 'string', pattern: ID_PATTERNS.key },
    signature: { type: 'string', pattern: '^[A-Za-z0-9_-]{86}$', description: 'base64url Ed25519 signature' },
  },
  required: ['algorithm', 'key_id', 'signature'],
  additionalProperties: false,
};

function presence(p: EnvelopeMemberPresence, pattern: string): JsonSchema {
  if (p === 'never') return { type: 'null' };
  const value = { type: 'string', pattern };
  return p === 'always' ? value : { anyOf: [value, { type: 'null' }] };
}

function envelope(members: {
  event_type: JsonSchema;
  actor: JsonSchema;
  principal: JsonSchema;
  subject_ref: JsonSchema;
  reason_code: JsonSchema;
  data: JsonSchema;
  signed: boolean;
}): Record<string, unknown> {
  const required = [
    'schema_version',
    'event_id',
    'event_type',
    'occurred_at',
    'actor_entity_id',
    'principal_entity_id',
    'subject_ref',
    'reason_code',
    'data',
    'audit_ref',
    'evidence_refs',
    'delivery',
  ];
  return {
    $schema: DRAFT,
    type: 'object',
    properties: {
      schema_version: { const: ENVELOPE_SCHEMA_NAME },
      event_id: { type: 'string', pattern: ID_PATTERNS.event },
      event_type: members.event_type,
      occurred_at: TIMESTAMP,
      actor_entity_id: members.actor,
      principal_entity_id: members.principal,
      subject_ref: members.subject_ref,
      reason_code: members.reason_code,
      data: members.data,
      audit_ref: { type: 'string', pattern: ID_PATTERNS.audit },
      evidence_refs: { type: 'array', items: { type: 'string', pattern: ID_PATTERNS.evidence_pack } },
      delivery: {
        type: 'object',
        properties: {
          idempotency_key: { type: 'string', pattern: ID_PATTERNS.event, description: 'equal to `event_id`' },
          replayable: { type: 'boolean' },
        },
        required: ['idempotency_key', 'replayable'],
        additionalProperties: false,
      },
      ...(members.signed ? { signature: SIGNATURE } : {}),
    },
    required: members.signed ? [...required, 'signature'] : required,
    additionalProperties: false,
  };
}

/** The envelope of any event type, as delivered and as `GET /v1/events` serves it (signed). */
export const WEBHOOK_ENVELOPE_SCHEMA: JsonSchema = {
  $id: `urn:aar:schema:${ENVELOPE_SCHEMA_NAME}`,
  title: ENVELOPE_SCHEMA_NAME,
  ...envelope({
    event_type: { type: 'string', pattern: '^ns\\.[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$' },
    actor: { anyOf: [{ type: 'string', pattern: ID_PATTERNS.actor }, { type: 'null' }] },
    principal: { anyOf: [{ type: 'string', pattern: ID_PATTERNS.principal }, { type: 'null' }] },
    subject_ref: { type: 'string', minLength: 1 },
    reason_code: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
    data: { type: 'object' },
    signed: true,
  }),
};

export interface EnvelopeSchemaOptions {
  /** include the `signature` member (true: as delivered and served; false: as stored before signing) */
  signed: boolean;
}

/** The envelope schema of one event type: every member the catalogue fixes for it, `data` included. */
export function envelopeSchemaOf(definition: EventTypeDefinition, options: EnvelopeSchemaOptions): JsonSchema {
  return {
    title: `${ENVELOPE_SCHEMA_NAME} ${definition.event_type}`,
    ...envelope({
      event_type: { const: definition.event_type },
      actor: presence(definition.actor_entity_id, ID_PATTERNS.actor),
      principal: presence(definition.principal_entity_id, ID_PATTERNS.principal),
      subject_ref: { type: 'string', pattern: definition.subject_ref.pattern },
      reason_code: definition.rule_reasons
        ? { anyOf: [{ enum: [...definition.reason_codes] }, { type: 'string', pattern: RULE_REASON_PATTERN }] }
        : { enum: [...definition.reason_codes] },
      data: definition.data_schema,
      signed: options.signed,
    }),
  };
}
