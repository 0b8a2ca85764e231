/**
 * JSON Schema (2020-12) fragments shared by the event catalogue: the id forms of CONTRACT section 1, money
 * (section 2), timestamps and closed objects. Patterns are anchored strings (JSON Schema `pattern` is unanchored).
 */

/** A JSON Schema document or fragment: plain JSON, so it can be served, hashed and compiled by any validator. */
export type JsonSchema = { readonly [keyword: string]: unknown };

const LOCAL = '[A-Za-z0-9._-]{1,128}';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** Anchored patterns of the id forms events carry. */
export const ID_PATTERNS = {
  entity: `^ns:entity:(person|organisation|agent):${LOCAL}$`,
  principal: `^ns:entity:(person|organisation):${LOCAL}$`,
  card_token: `^ns:card_token:${LOCAL}$`,
  card_credential: `^ns:credential:card-token:${LOCAL}$`,
  merchant: `^ns:merchant:${LOCAL}$`,
  merchant_local: `^${LOCAL}$`,
  grant: `^ns:authority:grant:${UUID}$`,
  decision: `^ns:decision:${UUID}$`,
  decision_map: `^ns:decision_map:${UUID}$`,
  approval: `^ns:approval:${UUID}$`,
  token: `^ns:token:${UUID}$`,
  evidence_pack: `^ns:evidence-pack:${UUID}$`,
  audit: `^ns:audit:${UUID}$`,
  event: `^ns:event:${UUID}$`,
  key: `^ns:key:${LOCAL}$`,
  capability: '^ns:capability:[a-z0-9_]{1,64}:[a-z0-9_]{1,64}$',
  webhook_endpoint: `^ns:webhook_endpoint:${UUID}$`,
  /** who acted: an entity, or the credential of an administrative change */
  actor: `^(ns:entity:(person|organisation|agent):${LOCAL}|ns:token:${UUID})$`,
} as const;

export type IdKind = keyof typeof ID_PATTERNS;

export function id(kind: IdKind, description?: string): JsonSchema {
  return { type: 'string', pattern: ID_PATTERNS[kind], ...(description ? { description } : {}) };
}

/** One of several id forms. */
export function anyId(kinds: readonly IdKind[], description?: string): JsonSchema {
  return {
    type: 'string',
    pattern: `^(${kinds.map((k) => ID_PATTERNS[k].slice(1, -1)).join('|')})$`,
    ...(description ? { description } : {}),
  };
}

export const TIMESTAMP: JsonSchema = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC' };

/** CONTRACT section 2: major units as a JSON number, ISO 4217 alpha-3. */
export const MONEY: JsonSchema = {
  type: 'object',
  properties: {
    amount: { type: 'number', exclusiveMinimum: 0, description: 'major units' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 alpha-3' },
  },
  required: ['amount', 'currency'],
  additionalProperties: false,
};

export const COUNT: JsonSchema = { type: 'integer', minimum: 0 };
export const BOOLEAN: JsonSchema = { type: 'boolean' };

export function nullable(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: 'null' }] };
}

export function oneOf(values: readonly string[], description?: string): JsonSchema {
  return values.length === 1
    ? { const: values[0], ...(description ? { description } : {}) }
    : { enum: [...values], ...(description ? { description } : {}) };
}

/**
 * A closed object: every property listed is required unless named in `optional`, and no other member may appear.
 * Closed on purpose: a member added to an event is a deliberate, catalogued change (a minor version), never a leak.
 */
export function closedObject(
  properties: Readonly<Record<string, JsonSchema>>,
  optional: readonly string[] = [],
): JsonSchema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}

/** The `previous_state` / `new_state` pair of a state change. */
export function stateChange(previous: readonly string[], next: readonly string[]): Record<string, JsonSchema> {
  return {
    previous_state: oneOf(previous, 'the state before the change'),
    new_state: oneOf(next, 'the state after the change'),
  };
}

/** The `subject_ref` of a catalogue entry: what it names, and the pattern of its id form(s). */
export function subject(kinds: readonly IdKind[], description: string): { description: string; pattern: string } {
  return { description, pattern: anyId(kinds).pattern as string };
}
