/**
 * The policy-content documents of CONTRACT section 19 (`ns.rule_pack.v1`, `ns.dictionary.v1`, `ns.sector_pack.v1`)
 * and the policy set a decision snapshot carries. Stored formats, replayed offline years later: change additively.
 * Rules are JsonLogic expressions in the strict profile `aar-jsonlogic/1` (profile.ts); they only ever narrow a
 * decision (CONTRACT section 19 "Order").
 */
import type { DocumentSignature } from '../signing/index.ts';

export const RULE_PACK_SCHEMA = 'ns.rule_pack.v1';
export const DICTIONARY_SCHEMA = 'ns.dictionary.v1';
export const SECTOR_PACK_SCHEMA = 'ns.sector_pack.v1';

/** A JsonLogic expression inside the strict profile: checked by `checkRuleProfile` before any use. */
export type RuleExpression = unknown;

export type PurchaseRuleEffect = 'deny' | 'require_approval' | 'obligate';
export type GenericRuleEffect = 'permit' | 'deny';
export type RuleEffect = PurchaseRuleEffect | GenericRuleEffect;
export type PackDomain = 'purchase' | 'generic';

/** `<pack name>.<code>` (`velocity.hourly_count_exceeded`): never one of the built-in reason codes. */
export type RuleReason = `${string}.${string}`;

export interface RuleObligation {
  /** a term of the `obligation_type` dictionary */
  type: string;
  [member: string]: unknown;
}

export interface Rule {
  rule_id: string;
  title: string;
  description: string;
  /** `rule_taxonomy` term codes */
  taxonomy?: string[];
  when: RuleExpression;
  effect: RuleEffect;
  /** required for `deny` and `require_approval`; one the pack declares in `reasons` */
  reason?: RuleReason;
  obligations?: RuleObligation[];
  /** `stop_condition` terms */
  stop_conditions?: string[];
}

/** A reason code the pack declares: `code` is the part after `<name>.`. */
export interface DeclaredReason {
  code: string;
  decision: 'deny' | 'require_approval';
  description: string;
}

export interface PackTestCase {
  name: string;
  /** a rule context `{ request, facts }` (dict is filled from the pack's dictionaries) */
  context: Record<string, unknown>;
  expect: { effect: RuleEffect | 'none'; reason?: string };
}

export interface RulePackDocument {
  schema_version: typeof RULE_PACK_SCHEMA;
  /** `ns:rule_pack:<name>` */
  pack_id: string;
  /** semver */
  version: string;
  domain: PackDomain;
  title: string;
  description: string;
  /** `ns:dictionary:<name>@<version>` */
  dictionaries: string[];
  reasons?: DeclaredReason[];
  rules: Rule[];
  tests: PackTestCase[];
  /**
   * Compliance mappings (CONTRACT section 13) are rule packs too (domain `generic`, no rules): these members carry
   * the framework id (`psd3`), its source, scope note and controls (core compliance/rule-pack.ts `RulePack`).
   */
  framework?: string;
  source?: Record<string, unknown>;
  scope_note?: string;
  /** deprecated alias `ns:rule_pack:<framework>:<version>` kept for compliance clients */
  rule_pack_id?: string;
  controls?: unknown[];
  signature?: DocumentSignature;
}

export interface DictionaryTerm {
  code: string;
  label: string;
  [attribute: string]: unknown;
}

export interface DictionaryDocument {
  schema_version: typeof DICTIONARY_SCHEMA;
  /** `ns:dictionary:<name>` */
  dictionary_id: string;
  version: string;
  title: string;
  /** where the terms come from (a standard, or `aar` for the service's own closed lists) */
  source: string;
  terms: DictionaryTerm[];
  signature?: DocumentSignature;
}

export interface SectorPackDocument {
  schema_version: typeof SECTOR_PACK_SCHEMA;
  /** `ns:sector_pack:<name>` */
  sector_pack_id: string;
  version: string;
  title: string;
  sector: string;
  /** `<pack_id>@<version>` */
  rule_packs: string[];
  scope_templates: { name: string; scope: Record<string, unknown> }[];
  /** `ns:dictionary:<name>@<version>` */
  dictionaries: string[];
  signature?: DocumentSignature;
}

export type ActivationMode = 'enforce' | 'shadow';

/** One active pack as a decision snapshot carries it: the signed, published document itself. */
export interface PolicySetPack {
  /** `ns:rule_activation:<uuid>` */
  activation_id: string;
  mode: ActivationMode;
  document: RulePackDocument;
}

/** A declared dictionary as rules read it (`dict.<name>.codes`, `dict.<name>.terms.<code>`). */
export interface DictionarySnapshot {
  dictionary_id: string;
  version: string;
  /** `sha-256:` + base64url of the published dictionary document without `signature` */
  digest: string;
  codes: string[];
  terms: Record<string, Omit<DictionaryTerm, 'code'>>;
}

/** `snapshot.policy_set` (aar-decide/1.3.0): every enforce or shadow pack in activation order, and their dictionaries. */
export interface PolicySetSnapshot {
  packs: PolicySetPack[];
  /** by dictionary name */
  dictionaries: Record<string, DictionarySnapshot>;
}

/** `snapshot.facts.counters`: the principal's (and this agent's) allowed executes before this decision. */
export interface PurchaseCounters {
  purchases_1h: number;
  purchases_24h: number;
  spend_24h_minor: number;
  spend_30d_minor: number;
  merchant_first_purchase: boolean;
  agent_purchases_1h: number;
  agent_purchases_24h: number;
}

/** `snapshot.facts.local_time`: the decision's instant in the principal's time zone. */
export interface LocalTime {
  /** IANA zone name */
  zone: string;
  hour: number;
  minute: number;
  /** ISO weekday: Monday 1 ... Sunday 7 */
  weekday: number;
  /** YYYY-MM-DD */
  date: string;
}

export interface DecisionFacts {
  counters?: PurchaseCounters;
  local_time?: LocalTime;
}

/** A matched rule of an enforce pack, in `diagnostics.rules`. */
export interface RuleDiagnostic {
  pack_id: string;
  version: string;
  rule_id: string;
  effect: RuleEffect;
  matched: true;
  /** the rule threw while evaluating: counted as matched (fail closed) */
  error?: true;
}

/** A shadow pack's would-be outcome, in `result.shadow`. */
export interface ShadowOutcome {
  pack_id: string;
  version: string;
  effect: PurchaseRuleEffect | 'none';
  reason?: string;
}
