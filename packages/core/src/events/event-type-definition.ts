/**
 * One entry of the event catalogue (CONTRACT section 9, `GET /v1/event-types`): what a consumer needs to handle an
 * event type without reading the service's code. Public contract: a new type, reason code or optional data member
 * is a minor version; a removed or renamed one, or a data member made required, is a major (SPEC "Versioning").
 */
import type { JsonSchema } from './schema-parts.ts';

/** Whether an envelope member carries an id: `always`, `never` (it is `null`) or `sometimes` (an id or `null`). */
export type EnvelopeMemberPresence = 'always' | 'sometimes' | 'never';

export interface EventTypeDefinition {
  /** `ns.<family>.<name>` */
  readonly event_type: string;
  /** the second segment of `event_type` (CONTRACT section 9) */
  readonly family: string;
  /** when the service emits it */
  readonly description: string;
  /** what `subject_ref` names, and its form */
  readonly subject_ref: { readonly description: string; readonly pattern: string };
  /** the closed list of `reason_code` values this type is emitted with */
  readonly reason_codes: readonly string[];
  /**
   * also emitted with the reason of a rule of an active rule pack, `<pack name>.<code>` (RULE_REASON_PATTERN; CONTRACT
   * section 19): a decision a rule denied or stepped up. Absent: only `reason_codes`.
   */
  readonly rule_reasons?: true;
  readonly principal_entity_id: EnvelopeMemberPresence;
  readonly actor_entity_id: EnvelopeMemberPresence;
  /** one of the five types SPEC "Event types" names */
  readonly named_in_spec: boolean;
  /** JSON Schema 2020-12 of `data`; closed (`additionalProperties: false`) */
  readonly data_schema: JsonSchema;
}

/** a rule pack's reason `<pack name>.<code>` (CONTRACT section 19): never one of the built-in reason codes (no dot) */
export const RULE_REASON_PATTERN = '^[a-z][a-z0-9_-]{1,62}\\.[a-z][a-z0-9_]{0,62}$';

export const EVENT_TYPE_PATTERN = /^ns\.([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)$/;

export type EventTypeInput = Omit<EventTypeDefinition, 'family' | 'named_in_spec'> & { named_in_spec?: boolean };

/** Builds an entry; the family is derived from the type, so the two can never disagree. */
export function defineEventType(input: EventTypeInput): EventTypeDefinition {
  const match = EVENT_TYPE_PATTERN.exec(input.event_type);
  if (!match) throw new Error(`event type \`${input.event_type}\` is not of the form ns.<family>.<name>`);
  if (input.reason_codes.length === 0) throw new Error(`event type \`${input.event_type}\` names no reason code`);
  return {
    event_type: input.event_type,
    family: match[1]!,
    description: input.description,
    subject_ref: input.subject_ref,
    reason_codes: input.reason_codes,
    ...(input.rule_reasons ? { rule_reasons: true as const } : {}),
    principal_entity_id: input.principal_entity_id,
    actor_entity_id: input.actor_entity_id,
    named_in_spec: input.named_in_spec ?? false,
    data_schema: input.data_schema,
  };
}
