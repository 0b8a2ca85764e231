/**
 * The event catalogue (CONTRACT section 9): every type the service emits, in families. The server refuses to
 * append an event whose type or reason code is not here (fail closed), serves it at `GET /v1/event-types`, and its
 * tests validate every event they produce against the schemas below.
 */
import type { EventTypeDefinition } from './event-type-definition.ts';
import { APPROVAL_EVENTS } from './families/approval.ts';
import { AUDIT_EVENTS } from './families/audit.ts';
import { AUTHORITY_EVENTS } from './families/authority.ts';
import { CARD_TOKEN_EVENTS } from './families/card-token.ts';
import { CREDENTIAL_EVENTS } from './families/credential.ts';
import { DECISION_EVENTS } from './families/decision.ts';
import { ENTITY_EVENTS } from './families/entity.ts';
import { KEY_EVENTS } from './families/key.ts';
import { ALLOWANCE_EVENTS, MANDATE_EVENTS } from './families/mandate.ts';
import { MERCHANT_EVENTS } from './families/merchant.ts';
import { PURCHASE_AUTHORITY_EVENTS } from './families/purchase-authority.ts';
import { RISK_EVENTS } from './families/risk.ts';
import { LISTING_EVENTS } from './families/listing.ts';
import { WEBHOOK_EVENTS } from './families/webhook.ts';
import { PAYLOAD_ARTEFACT_EVENTS } from './families/payload-artefact.ts';
import { MEMORY_EVENTS } from './families/memory.ts';
import { REPORT_EVENTS } from './families/report.ts';
import { RULE_REASON_PATTERN } from './event-type-definition.ts';
import {
  BACKTEST_EVENTS,
  DICTIONARY_EVENTS,
  RULE_ACTIVATION_EVENTS,
  RULE_PACK_EVENTS,
  SECTOR_PACK_EVENTS,
} from './families/policy.ts';

export interface EventFamily {
  family: string;
  description: string;
  types: readonly EventTypeDefinition[];
}

/** In the order consumers meet them: who exists, what they may do, what they did, and the service's own. */
export const EVENT_FAMILIES: readonly EventFamily[] = [
  { family: 'entity', description: 'persons, organisations and agents', types: ENTITY_EVENTS },
  { family: 'card_token', description: 'network tokens bound to a principal', types: CARD_TOKEN_EVENTS },
  { family: 'merchant', description: 'merchants decisions are checked against', types: MERCHANT_EVENTS },
  { family: 'authority', description: 'grants, delegation and revocation', types: AUTHORITY_EVENTS },
  { family: 'mandate', description: 'AP2 mandates accepted as grants, and their revocation', types: MANDATE_EVENTS },
  { family: 'allowance', description: 'ACP allowances accepted as one-use grants', types: ALLOWANCE_EVENTS },
  {
    family: 'purchase_authority',
    description: 'authorize decisions that allow or deny, and purchase outcomes',
    types: PURCHASE_AUTHORITY_EVENTS,
  },
  { family: 'decision', description: 'decisions needing the principal, replays that differ', types: DECISION_EVENTS },
  {
    family: 'approval',
    description: 'the principal\u2019s answer to an approval, or its lapse',
    types: APPROVAL_EVENTS,
  },
  { family: 'risk', description: 'risk states from an external risk engine', types: RISK_EVENTS },
  { family: 'credential', description: 'API tokens', types: CREDENTIAL_EVENTS },
  { family: 'key', description: 'the service signing keys', types: KEY_EVENTS },
  { family: 'audit', description: 'the audit chain', types: AUDIT_EVENTS },
  { family: 'webhook', description: 'webhook endpoints and deliveries', types: WEBHOOK_EVENTS },
  { family: 'listing', description: 'marketplace listings', types: LISTING_EVENTS },
  { family: 'rule_pack', description: 'rule packs: drafts, publication, retirement', types: RULE_PACK_EVENTS },
  { family: 'rule_activation', description: 'rule packs applied to a target', types: RULE_ACTIVATION_EVENTS },
  { family: 'dictionary', description: 'controlled vocabularies rules and the service read', types: DICTIONARY_EVENTS },
  { family: 'sector_pack', description: 'sector packs applied to a principal', types: SECTOR_PACK_EVENTS },
  { family: 'backtest', description: 'rule packs run against stored decisions', types: BACKTEST_EVENTS },
  {
    family: 'payload_artefact',
    description: 'payload artefacts: received, verified or rejected, executed',
    types: PAYLOAD_ARTEFACT_EVENTS,
  },
  {
    family: 'memory',
    description: 'governed agent memory records: written, erased, purged at retention',
    types: MEMORY_EVENTS,
  },
  { family: 'report', description: 'compliance reports: scheduled and generated', types: REPORT_EVENTS },
];

export const EVENT_CATALOGUE: readonly EventTypeDefinition[] = EVENT_FAMILIES.flatMap((f) => f.types);

const BY_TYPE: ReadonlyMap<string, EventTypeDefinition> = new Map(EVENT_CATALOGUE.map((d) => [d.event_type, d]));
const REASONS_BY_TYPE: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  EVENT_CATALOGUE.map((d) => [d.event_type, new Set(d.reason_codes)]),
);

/** The catalogue entry of `eventType`, or undefined for a type the service does not emit. */
export function eventTypeDefinition(eventType: string): EventTypeDefinition | undefined {
  return BY_TYPE.get(eventType);
}

/** Whether the catalogue lists `eventType` with `reasonCode`: the cheap check every append makes. */
export function isCataloguedEvent(eventType: string, reasonCode: string): boolean {
  const known = REASONS_BY_TYPE.get(eventType)?.has(reasonCode) ?? false;
  return known || (RULE_REASON_TYPES.has(eventType) && RULE_REASON.test(reasonCode));
}

/** the types also emitted with a rule's reason (`rule_reasons`) */
const RULE_REASON_TYPES: ReadonlySet<string> = new Set(
  EVENT_CATALOGUE.filter((d) => d.rule_reasons).map((d) => d.event_type),
);
const RULE_REASON = new RegExp(RULE_REASON_PATTERN);
