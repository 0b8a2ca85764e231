import { AarError, isCataloguedEvent } from '@aar/core';

/**
 * Fails closed on an event the catalogue (core/events, `GET /v1/event-types`) does not list with this reason code:
 * an uncatalogued event would reach subscribers with a shape no one promised them. Two map lookups, so every append
 * pays it; the full schema check runs only under test (check-envelope-in-tests.ts).
 */
export function assertCatalogued(eventType: string, reasonCode: string): void {
  if (!isCataloguedEvent(eventType, reasonCode)) {
    throw new AarError(
      'internal',
      `event \`${eventType}\` with reason \`${reasonCode}\` is not in the event catalogue`,
    );
  }
}
