// The event catalogue (CONTRACT section 9): types, families, reason codes and the JSON Schemas of `data` and of the
// `ns.webhook.v1` envelope. Pure data: the server enforces and serves it, SDKs and the console may read it.
export {
  defineEventType,
  EVENT_TYPE_PATTERN,
  RULE_REASON_PATTERN,
  type EnvelopeMemberPresence,
  type EventTypeDefinition,
} from './event-type-definition.ts';
export {
  EVENT_CATALOGUE,
  EVENT_FAMILIES,
  eventTypeDefinition,
  isCataloguedEvent,
  type EventFamily,
} from './event-catalogue.ts';
export {
  ENVELOPE_SCHEMA_NAME,
  envelopeSchemaOf,
  WEBHOOK_ENVELOPE_SCHEMA,
  type EnvelopeSchemaOptions,
} from './envelope-schema.ts';
export { ID_PATTERNS, type JsonSchema } from './schema-parts.ts';
