/** `ns.report.*` (CONTRACT section 22, issue 30): compliance reports: scheduled and generated. */
import type { EventTypeDefinition } from '../event-type-definition.ts';

export const REPORT_EVENTS: readonly EventTypeDefinition[] = [];
