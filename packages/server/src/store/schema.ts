/**
 * The typed shape of every table (Kysely `Database`). Conventions, on both dialects:
 * - timestamps are ISO 8601 UTC strings with milliseconds (`2026-11-20T23:47:26.123Z`): they sort as text;
 * - JSON columns hold JSON text; money inside them is integer minor units;
 * - `seq` is an auto-increment integer giving insertion order, used for cursor pagination.
 */
import type { ColumnType, Generated } from 'kysely';
import type { PayloadArtefactTables } from './schema-payload-artefacts.ts';
import type { MemoryTables } from './schema-memory.ts';
import type { SearchTables } from './schema-search.ts';
import type { ReportTables } from './schema-reports.ts';
import type { AgentMetadataTables } from './schema-agent-metadata.ts';

type Seq = Generated<number>;
type Json = string;
type Timestamp = string;

export type EntityState = 'active' | 'suspended' | 'tombstoned';
export type SimpleState = 'active' | 'suspended';
export type GrantState = 'active' | 'revoked';
export type Role = 'admin' | 'runtime' | 'principal' | 'auditor' | 'pep';

export interface EntitiesTable {
  seq: Seq;
  entity_id: string;
  type: 'person' | 'organisation' | 'agent';
  display_name: string | null;
  public_key_jwk: Json | null;
  key_thumbprint: string | null;
  state: EntityState;
  /** since migration 0018: the IANA time zone `facts.local_time` is computed in (null: UTC); restated by its creation event */
  time_zone: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CardTokensTable {
  seq: Seq;
  card_token_id: string;
  principal_entity_id: string;
  network_token: string;
  network: string | null;
  last4: string | null;
  expires: string | null;
  state: SimpleState;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MerchantsTable {
  seq: Seq;
  merchant_id: string;
  display_name: string;
  category: string;
  jurisdiction: string;
  state: SimpleState;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GrantsTable {
  seq: Seq;
  grant_id: string;
  parent_grant_id: string | null;
  root_grant_id: string;
  depth: number;
  principal_entity_id: string;
  actor_entity_id: string;
  capability_id: string;
  resource_id: string;
  /** the grant's own scope as given (JSON, money in minor units); inheritance is resolved when read */
  scope: Json;
  /**
   * the state the row was written with. A revocation is recorded in `grant_revocations` (migration 0005) and the row
   * is not rewritten: read a grant's state through services/grants/grant-rows.ts.
   */
  state: GrantState;
  /** the signed link document (CONTRACT section 4), JSON */
  document: Json;
  /** the delegator's own signature over the link, when the delegator has a registered key */
  delegator_signature: Json | null;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  revoked_at: Timestamp | null;
  /** since migration 0023: the mandate or allowance the grant was made from (services/mandates); null otherwise */
  mandate_id: ColumnType<string | null, string | null | undefined, never>;
}

/** since migration 0021: the AuthZEN door's signed generic-domain decisions (services/authzen/record-access-decisions.ts) */
export interface AccessDecisionsTable {
  seq: Seq;
  access_decision_id: string;
  audit_id: string;
  decided_at: Timestamp;
  /** the signed `ns.access_decision.v1`, RFC 8785 text */
  document: string;
}

export interface ApiTokensTable {
  seq: Seq;
  token_id: string;
  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  token_hash: string;
  role: Role;
  principal_entity_id: string | null;
  label: string | null;
  /** since migration 0014: the connector this credential is bound to (its manifest's rules apply) */
  connector_id: ColumnType<string | null, string | null | undefined, never>;
  /**
   * since migration 0024: the token scopes (CONTRACT section 22), a JSON array of scope names, sorted and unique;
   * `[]` for every token made before it. Fixed at creation.
   */
  scopes: ColumnType<string, string | undefined, never>;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface EventsTable {
  seq: Seq;
  event_id: string;
  event_type: string;
  occurred_at: Timestamp;
  subject_ref: string;
  /** the `ns.webhook.v1` envelope, JSON, unsigned (signed when read); empty when `operation_ref` is set */
  envelope: Json;
  /** set for events of a bulk operation: the envelope is rebuilt from event_operations (derived-envelope.ts) */
  operation_ref: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface EventOperationsTable {
  operation_ref: string;
  template: Json;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  credential_id: string;
  idem_key: string;
  /** SHA-256 over method, route and body: the same key with another request is refused */
  request_hash: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_headers: Json | null;
  response_body: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface SigningKeysTable {
  key_id: string;
  public_jwk: Json;
  valid_from: Timestamp;
  /** set when the key is rotated out: it stops signing but stays published so old documents verify */
  valid_until: Timestamp | null;
  created_at: ColumnType<Timestamp, Timestamp, never>;
}

export type DecisionValue = 'allow_with_constraints' | 'require_approval' | 'deny';
export type DecisionOutcome = 'none' | 'reserved' | 'executed' | 'failed' | 'refunded';

export interface DecisionsTable {
  seq: Seq;
  policy_decision_id: string;
  decision: DecisionValue;
  reason: string;
  actor_entity_id: string;
  principal_entity_id: string;
  subject: string;
  action: string;
  leaf_grant_id: string | null;
  /** the normalized DecisionRequest decide read (JSON, minor units) */
  request: Json;
  /** every fact decide read (DecisionSnapshot, JSON): replaying decide on it gives the same result */
  snapshot: Json;
  /** the DecisionResult (JSON) */
  result: Json;
  decision_map_id: string;
  /** the signed decision map (JSON) */
  decision_map: Json;
  audit_ref: string;
  evidence_refs: Json;
  approval_id: string | null;
  /** the Reservation of an allowed execute (JSON), else null */
  reservation: Json | null;
  /** the UTC day the reservation counts against */
  spend_day: string | null;
  outcome: DecisionOutcome;
  engine_version: string;
  /** the instant decide was given */
  now: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /**
   * since migration 0010: the decision record's RFC 8785 bytes, compressed (services/decisions/record-codec.ts);
   * `request`, `snapshot`, `result` (and `decision_map`, unless its order needs it) are then empty strings
   */
  record: Buffer | null;
  /** since migration 0018: the request's `merchant_id`, restated from the record (what the rule counters read) */
  merchant_id: string | null;
  /** since migration 0018: the request's amount in minor units (PostgreSQL returns the bigint as a string) */
  amount_minor: number | string | null;
  /** since migration 0018: the request's amount's currency */
  currency: string | null;
}

export interface SpendCountersTable {
  grant_id: string;
  day: string;
  currency: string;
  reserved_minor: number;
}

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'consumed';

export interface ApprovalsTable {
  seq: Seq;
  approval_id: string;
  policy_decision_id: string;
  principal_entity_id: string;
  actor_entity_id: string;
  status: ApprovalStatus;
  /** why approval was required: amount_above_approval_threshold or risk_state_elevated */
  reason: string;
  /** the request fields the principal approves (ApprovalBinding, JSON) */
  bound: Json;
  expires_at: Timestamp;
  decided_at: Timestamp | null;
  sca_reference: string | null;
  /** the allowed retry that spent this approval */
  consumed_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type RiskStateValue = 'normal' | 'elevated' | 'blocked';

export interface RiskStatesTable {
  entity_id: string;
  risk_state: RiskStateValue;
  reason: string | null;
  expires_at: Timestamp | null;
  updated_at: Timestamp;
}

export interface RequestNoncesTable {
  keyid: string;
  nonce: string;
  created: number;
  expires_at: Timestamp;
}

export interface AuditEntriesTable {
  idx: number;
  audit_id: string;
  kind: string;
  subject_ref: string;
  occurred_at: Timestamp;
  /** the leaf bytes: RFC 8785 JSON of the AuditEntry */
  entry: string;
  /** SHA-256(0x00 || entry), standard base64 */
  leaf_hash: string;
}

export interface AuditNodesTable {
  /** log2 of the subtree width: 0 for leaves */
  level: number;
  /** begin / width */
  idx: number;
  hash: string;
}

export interface AuditStateTable {
  id: number;
  size: number;
  last_leaf_hash: string;
  /** CompactRange JSON */
  frontier: Json;
  updated_at: Timestamp;
}

export interface AuditCheckpointsTable {
  size: number;
  root_hash: string;
  timestamp: Timestamp;
  /** the signed checkpoint document (JSON) */
  document: Json;
}

/** A signed mark of a verification that found the log valid through `size` (migration 0010). */
export interface AuditVerificationsTable {
  size: number;
  root_hash: string;
  /** the signed `ns.audit_verification.v1` (JSON) */
  document: Json;
  created_at: Timestamp;
}

export interface SubjectSaltsTable {
  subject_ref: string;
  /** 32 random bytes, base64url */
  salt: string;
  created_at: Timestamp;
}

/** One row per assembled proof bundle (migration 0011), write-once. */
export interface BundlesTable {
  seq: Seq;
  bundle_id: string;
  policy_decision_id: string;
  /** the signed `ns.authority_proof_bundle.v1`, RFC 8785 JSON, served byte for byte */
  document: Json;
  /** the token that assembled it, for the principal's own-decisions rule and the audit trail */
  created_by: string | null;
  created_at: Timestamp;
}

export interface EvidencePacksTable {
  evidence_pack_id: string;
  policy_decision_id: string;
  /** the signed `ns.evidence_pack.v1`, RFC 8785 JSON, served byte for byte */
  document: Json;
  created_at: Timestamp;
}

/** One row per revoked grant (migration 0005): the cascade writes these instead of rewriting wide grant rows. */
export interface GrantRevocationsTable {
  grant_id: string;
  revoked_at: Timestamp;
  /** the audit entry of the revocation operation */
  operation_ref: string;
  /** the grant the revoke was called on (this one, or the ancestor whose cascade reached it) */
  cascade_root: string;
}

/** A delegator's signed statement is accepted once: its nonce is kept here. */
export interface DelegationNoncesTable {
  delegator_entity_id: string;
  nonce: string;
  grant_id: string;
  created_at: Timestamp;
}

/** One row (id 1): bumped by every change of a grant; instances compare it before using cached grant chains. */
export interface GrantVersionTable {
  id: number;
  version: ColumnType<number, number, number>;
}

/** Facts fixed when the store is created (migration 0007), one write-once row per key: `audit_origin`. */
export interface StoreMetaTable {
  key: string;
  value: string;
  created_at: Timestamp;
}

/** A webhook endpoint (migration 0008). `secret` is set only for the `shared_secret` profile; never returned. */
export interface WebhookEndpointsTable {
  seq: Seq;
  endpoint_id: string;
  url: string;
  profile: 'shared_secret' | 'asymmetric' | 'cose';
  /** JSON array of exact types and `ns.<family>.*` patterns; null: every event */
  event_types: Json | null;
  description: string | null;
  connector_id: string | null;
  state: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_until: Timestamp | null;
  /** the last events.seq fanned out to this endpoint */
  cursor_seq: ColumnType<number, number, number>;
  failing_since: Timestamp | null;
  lease_owner: string | null;
  lease_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type WebhookAttemptStatus = 'pending' | 'succeeded' | 'failed' | 'exhausted';

/** One delivery attempt (migration 0008): the queue (`pending`) and the log. Operational, not audit: rows settle. */
export interface WebhookAttemptsTable {
  seq: Seq;
  endpoint_id: string;
  event_id: string;
  event_seq: ColumnType<number, number, number>;
  event_type: string;
  attempt: number;
  status: WebhookAttemptStatus;
  replay: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp | null;
  attempted_at: Timestamp | null;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: Timestamp;
}

/** A marketplace listing (migration 0014), write-once. `document` is the registered listing's RFC 8785 JSON. */
export interface ListingsTable {
  seq: Seq;
  listing_id: string;
  kind: 'connector' | 'agent' | 'service';
  title: string;
  publisher_name: string;
  publisher_tier: 'community' | 'verified' | 'certified';
  pricing_model: 'free' | 'usage' | 'subscription' | 'enterprise';
  connector_id: string | null;
  conformance_report_id: string | null;
  document: Json;
  search_text: string;
  registered_at: Timestamp;
  registered_by: string | null;
}

/** One sector, regime or jurisdiction of a listing (migration 0014), for indexed search filters. */
export interface ListingFacetsTable {
  listing_seq: ColumnType<number, number, never>;
  facet: 'sector' | 'regime' | 'jurisdiction';
  value: string;
}

/** A signed conformance report of a self-run (migration 0013), write-once. */
export interface ConformanceRunsTable {
  seq: Seq;
  report_id: string;
  passed: number;
  fixtures: number;
  failed: number;
  /** the signed `ns.conformance_report.v1`, RFC 8785 JSON */
  document: Json;
  /** `self`: a self-run signed by this service; `publisher`: brought by a listing, signed by its publisher (0015) */
  origin: Generated<'self' | 'publisher'>;
  created_by: string | null;
  created_at: Timestamp;
}

/** What a conformance-kit run created (migration 0015): left out of default lists, retired at the run's end. */
export interface ConformanceArtifactsTable {
  seq: Seq;
  run_id: string;
  kind: ConformanceArtifactKind;
  ref: string;
  created_at: Timestamp;
  retired_at: Timestamp | null;
}

export type ConformanceArtifactKind =
  'entity' | 'grant' | 'listing' | 'webhook_endpoint' | 'card_token' | 'merchant' | 'token';

/** One row per signed self-audit report (migration 0012), write-once. */
export interface SelfAuditRunsTable {
  seq: Seq;
  run_id: string;
  /** 1 when no check failed */
  passed: number;
  failed: number;
  /** the signed `ns.self_audit_report.v1`, RFC 8785 JSON */
  document: Json;
  created_by: string | null;
  created_at: Timestamp;
}

/** When each API token was last used, at day precision (migration 0012, http/token-usage.ts). */
export interface ApiTokenUsageTable {
  token_id: string;
  last_used_at: Timestamp;
}

/** One row per signed certification self-attestation (migration 0012, preview), write-once. */
export interface CertificationAttestationsTable {
  seq: Seq;
  attestation_id: string;
  conformance_report_id: string;
  /** the JWS, compact serialisation */
  compact: string;
  created_by: string | null;
  created_at: Timestamp;
}

export type PolicyDocumentState = 'draft' | 'published' | 'retired';
export type PolicyOrigin = 'shipped' | 'operator';

/** One version of a rule pack (migration 0017): the draft as given, or the signed published document. */
export interface RulePacksTable {
  seq: Seq;
  name: string;
  version: string;
  pack_id: string;
  domain: 'purchase' | 'generic';
  state: PolicyDocumentState;
  /** RFC 8785 JSON: the draft, or the published document with its service signature (the bytes served) */
  document: Json;
  /** `sha-256:` of the document without `signature`; null for a draft */
  digest: string | null;
  origin: PolicyOrigin;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One version of a dictionary (migration 0017), like a rule pack. */
export interface DictionariesTable {
  seq: Seq;
  name: string;
  version: string;
  dictionary_id: string;
  state: PolicyDocumentState;
  document: Json;
  digest: string | null;
  origin: PolicyOrigin;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A published pack version applied to the deployment, a principal or a grant (migration 0017). */
export interface RuleActivationsTable {
  seq: Seq;
  activation_id: string;
  pack_name: string;
  version: string;
  digest: string;
  target_kind: 'deployment' | 'principal' | 'grant';
  /** null for the deployment */
  target_id: string | null;
  mode: 'enforce' | 'shadow';
  state: 'active' | 'deactivated';
  /** the sector pack (`<sector_pack_id>@<version>`) whose apply made it, else null */
  sector_pack: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A pack version run against stored decisions (migration 0017). */
export interface BacktestsTable {
  seq: Seq;
  backtest_id: string;
  pack_name: string;
  version: string;
  params: Json;
  state: 'running' | 'done' | 'failed';
  done_count: ColumnType<number, number | undefined, number>;
  total_count: ColumnType<number, number | undefined, number>;
  result: Json | null;
  error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The canonical text of a policy set, named by its SHA-256 from the decision records that carry it (migration 0022). */
export interface PolicySetTextsTable {
  /** hex SHA-256 of `text`'s UTF-8 bytes */
  digest: string;
  text: string;
}

/** A trusted AP2 mandate issuer (migration 0023), write-once: a mandate's issuer key comes from here only. */
export interface MandateIssuersTable {
  issuer: string;
  format: 'ap2';
  /** the issuer's JWKS (JSON `{ keys: [...] }`): given inline, or fetched once from `jwks_uri` at registration */
  jwks: Json;
  jwks_uri: string | null;
  /** the audit entry committing to the registration (kind `mandate_issuer`) */
  audit_id: string;
  created_at: Timestamp;
}

export type MandateFormat = 'ap2' | 'acp';

/**
 * An accepted AP2 mandate or ACP allowance (migration 0023) and the grant made from it. Write-once but `used_by`.
 * Its state is derived, never stored: `revoked` when its grant is revoked, `expired` past `expires_at`, `used` when
 * `used_by` is set, else `active` (services/mandates/mandate-state.ts).
 */
export interface MandatesTable {
  /** `ns:mandate:<uuid>` (AP2) or `ns:allowance:<uuid>` (ACP) */
  mandate_id: string;
  format: MandateFormat;
  /** base64url SHA-256 of `document`'s UTF-8 bytes (core mandateDigest) */
  digest: string;
  /** the AP2 issuer (a mandate_issuers row); null for ACP */
  issuer: string | null;
  principal_entity_id: string;
  actor_entity_id: string;
  parent_grant_id: string;
  root_grant_id: string;
  grant_id: string;
  /** JSON: the mandate's constraints as mapped (AP2), or the allowance's terms (ACP) */
  constraints: Json;
  /** AP2: the presentation exactly as submitted; ACP: the RFC 8785 text of the allowance */
  document: string;
  /** 1: a one-use grant (an ACP allowance, a closed AP2 mandate); 0 otherwise */
  single_use: number;
  checkout_session_id: string | null;
  /** ACP: the PSP's vaulted token id bound as the instrument */
  vaulted_token_id: string | null;
  /** ACP: the Idempotency-Key the allowance was created with */
  idempotency_key: string | null;
  expires_at: Timestamp | null;
  /** the allowed decision that spent a single-use mandate (set once, by authorize) */
  used_by: string | null;
  created_at: Timestamp;
}

/** The key-binding nonces of accepted AP2 presentations (migration 0023): each accepted once per holder key. */
export interface MandateNoncesTable {
  key_thumbprint: string;
  nonce: string;
  created_at: Timestamp;
}

export interface Database extends PayloadArtefactTables, MemoryTables, SearchTables, ReportTables, AgentMetadataTables {
  mandate_issuers: MandateIssuersTable;
  mandates: MandatesTable;
  mandate_nonces: MandateNoncesTable;
  conformance_runs: ConformanceRunsTable;
  conformance_artifacts: ConformanceArtifactsTable;
  self_audit_runs: SelfAuditRunsTable;
  api_token_usage: ApiTokenUsageTable;
  certification_attestations: CertificationAttestationsTable;
  store_meta: StoreMetaTable;
  event_operations: EventOperationsTable;
  grant_revocations: GrantRevocationsTable;
  delegation_nonces: DelegationNoncesTable;
  grant_version: GrantVersionTable;
  subject_salts: SubjectSaltsTable;
  audit_entries: AuditEntriesTable;
  audit_nodes: AuditNodesTable;
  audit_state: AuditStateTable;
  audit_checkpoints: AuditCheckpointsTable;
  audit_verifications: AuditVerificationsTable;
  evidence_packs: EvidencePacksTable;
  bundles: BundlesTable;
  decisions: DecisionsTable;
  spend_counters: SpendCountersTable;
  approvals: ApprovalsTable;
  risk_states: RiskStatesTable;
  request_nonces: RequestNoncesTable;
  entities: EntitiesTable;
  card_tokens: CardTokensTable;
  merchants: MerchantsTable;
  grants: GrantsTable;
  api_tokens: ApiTokensTable;
  access_decisions: AccessDecisionsTable;
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
  signing_keys: SigningKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_attempts: WebhookAttemptsTable;
  listings: ListingsTable;
  listing_facets: ListingFacetsTable;
  rule_packs: RulePacksTable;
  dictionaries: DictionariesTable;
  rule_activations: RuleActivationsTable;
  backtests: BacktestsTable;
  policy_set_texts: PolicySetTextsTable;
}
