/**
 * Per-endpoint event filters (CONTRACT section 9): exact types (`ns.authority.revoked`) and family wildcards
 * (`ns.decision.*`, the family being the second segment). No filter (null) takes every event.
 * Each entry must name a type or a family of the event catalogue (core/events, GET /v1/event-types): a misspelt
 * filter would otherwise match nothing, silently.
 */
import { EVENT_FAMILIES, eventTypeDefinition, fieldError } from '@aar/core';

const FAMILIES: ReadonlySet<string> = new Set(EVENT_FAMILIES.map((f) => f.family));

export const EVENT_TYPE_PATTERN = '^ns\\.[a-z][a-z0-9_]{0,63}\\.(\\*|[a-z][a-z0-9_]{0,63}(\\.[a-z][a-z0-9_]{0,63})?)$';
const PATTERN = new RegExp(EVENT_TYPE_PATTERN);
export const MAX_EVENT_TYPE_FILTERS = 64;

/** Checks and normalises a filter list (order kept, duplicates dropped); throws naming the entry. */
export function parseEventTypeFilter(value: readonly string[], path: string): string[] {
  if (value.length === 0) throw fieldError('invalid_request', path, 'must name at least one event type, or be omitted');
  if (value.length > MAX_EVENT_TYPE_FILTERS) {
    throw fieldError('invalid_request', path, `must have at most ${MAX_EVENT_TYPE_FILTERS} entries`);
  }
  value.forEach((entry, i) => {
    if (!PATTERN.test(entry)) {
      throw fieldError(
        'invalid_request',
        `${path}/${i}`,
        `\`${entry}\` is not \`ns.<family>.<type>\` or \`ns.<family>.*\``,
      );
    }
    const known = entry.endsWith('.*') ? FAMILIES.has(entry.slice(3, -2)) : eventTypeDefinition(entry) !== undefined;
    if (!known) {
      throw fieldError(
        'invalid_request',
        `${path}/${i}`,
        `\`${entry}\` is not in the event catalogue (GET /v1/event-types)`,
      );
    }
  });
  return [...new Set(value)];
}

/** Whether `eventType` passes `filter` (null: every type). */
export function matchesEventTypes(filter: readonly string[] | null, eventType: string): boolean {
  if (filter === null) return true;
  for (const entry of filter) {
    if (entry.endsWith('.*')) {
      if (eventType.startsWith(entry.slice(0, -1))) return true;
    } else if (entry === eventType) return true;
  }
  return false;
}
