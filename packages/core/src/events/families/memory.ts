/** `ns.memory.*` (CONTRACT section 22, issue 30): governed agent memory records: written, erased, purged at retention. */
import type { EventTypeDefinition } from '../event-type-definition.ts';

export const MEMORY_EVENTS: readonly EventTypeDefinition[] = [];
