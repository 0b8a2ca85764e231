/** `ns.payload_artefact.*` (CONTRACT section 22, issue 30): payload artefacts: received, verified or rejected, executed. */
import type { EventTypeDefinition } from '../event-type-definition.ts';

export const PAYLOAD_ARTEFACT_EVENTS: readonly EventTypeDefinition[] = [];
