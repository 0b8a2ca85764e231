/**
 * Inputs and output of `decide`. Field names are snake_case because requests, snapshots and results are stored as
 * JSON in evidence packs and replayed offline years later: these shapes are a stored format, change them additively.
 * Every amount is an integer of minor units (a safe integer); the server converts at the edge, decide never does.
 */
import type {
  DecisionFacts,
  PolicySetSnapshot,
  RuleDiagnostic,
  RuleObligation,
  RuleReason,
  ShadowOutcome,
} from '../rules/types.ts';
import type { CheckName, Decision, ReasonCode } from './reason-codes.ts';

/** aar-decide/1.3.0 and later: a built-in reason code, or a rule pack's own `<pack name>.<code>` (its decision is the rule's). */
export type DecisionReason = ReasonCode | RuleReason;

/** Structurally identical to core's money `Money`: integer minor units (2 decimals EUR, 0 JPY, 3 BHD). */
export interface MinorMoney {
  minor: number;
  currency: string;
}

/** aar-decide/1.4.0: the UTC period a `budget` counts spend over (`total`: every day since the grant). */
export type BudgetPeriod = 'day' | 'week' | 'month' | 'year' | 'total';

/** aar-decide/1.4.0: a cumulative budget, integer minor units over a UTC period (see budgetPeriodStart). */
export interface Budget extends MinorMoney {
  period: BudgetPeriod;
}

export type PurchaseAction =
  'search' | 'compare' | 'prepare' | 'request_approval' | 'execute' | 'refund_request' | 'dispute_prepare';

export interface DecisionRequest {
  actor_entity_id: string;
  principal_entity_id: string;
  /** capability id; must agree with `action` (see `actionFromSubject`) */
  subject: string;
  action: PurchaseAction;
  /** plain merchant id, as `resource.merchant_id` carries it */
  merchant_id?: string;
  amount?: MinorMoney;
  /** card token id `ns:card_token:<id>` (the credential form is accepted too) */
  instrument_id?: string;
  /** the basket as sent; decide hashes it (RFC 8785 + SHA-256) and binds the hash */
  basket?: Record<string, unknown>;
  /** `sha-256:` + base64url; when `basket` is given too, both must agree */
  basket_hash?: string;
  /** the retry of a `require_approval` decision names that decision */
  policy_decision_id?: string;
  /** recorded in evidence, never decisive */
  context?: Record<string, unknown>;
  /**
   * aar-decide/1.5.0: the model, software version and operator the agent says it runs as; when present it must equal
   * `snapshot.agent_metadata` (else `agent_metadata_mismatch`). Absent: not judged.
   */
  agent_metadata?: AgentMetadata;
}

/** aar-decide/1.5.0: what an agent attests about itself (`ns.agent_metadata_attestation.v1`). */
export interface AgentMetadata {
  model: string;
  software_version: string;
  operator: string;
}

/**
 * aar-decide/1.5.0: the agent's current attestation as the service accepted it: the attested fields, the digest of
 * the signed document (the evidence pack carries the document) and the agent key it verified against (the key the
 * service holds for the agent, so the pack can be checked offline).
 */
export interface AttestedAgentMetadata extends AgentMetadata {
  /** `ns:agent_metadata:<uuid>` */
  attestation_id: string;
  /** `sha-256:` + base64url of the RFC 8785 bytes of the whole signed document (agentMetadataDigest) */
  digest: string;
  /** the agent's registered Ed25519 public key (OKP JWK) the document's signature verified against */
  public_key_jwk: Record<string, unknown>;
}

export interface PayloadSnapshot {
  /** false when the caller is not required to sign (the check is then skipped) */
  required: boolean;
  present: boolean;
  signature_valid: boolean;
  /** RFC 9421 `created`, unix seconds */
  created?: number;
  nonce_fresh: boolean;
  window_seconds: number;
  /**
   * The signature base's `@target-uri` values the server verified against (its configured public URLs joined with
   * the received path): the one the signature verified for, else every candidate. Named in the diagnostics only.
   */
  target_uris?: string[];
  /** why the signature did not verify (RFC 9421 verifier's stable code); named in the diagnostics only */
  signature_failure?: string;
}

export type EntityState = 'active' | 'suspended' | 'tombstoned';

export interface EntitySnapshot {
  entity_id: string;
  type: 'person' | 'organisation' | 'agent';
  state: EntityState;
}

export interface InstrumentSnapshot {
  card_token_id: string;
  principal_entity_id: string;
  state: 'active' | 'suspended';
}

export interface GrantScope {
  max_amount_per_purchase?: MinorMoney;
  max_daily_amount?: MinorMoney;
  requires_approval_above?: MinorMoney;
  allowed_merchant_categories?: string[];
  blocked_merchant_categories?: string[];
  allowed_jurisdictions?: string[];
  /** ISO 8601 timestamp; the grant is expired when `valid_until <= now` */
  valid_until?: string;
  allowed_actions?: PurchaseAction[];
  may_delegate?: boolean;
  /** how many further levels of delegation may hang below this grant (0: none) */
  max_delegation_depth?: number;
  /**
   * aar-decide/1.4.0: this link's own cumulative budget, enforced against the link's subtree spend in the current
   * period (`GrantSnapshot.budget_spent`); same currency as the grant's other limits
   */
  budget?: Budget;
  /** aar-decide/1.4.0: the merchant ids (as `request.merchant_id` carries them) a purchase may be made at */
  allowed_merchants?: string[];
}

/** aar-decide/1.4.0: the mandate (AP2) or allowance (ACP) a grant was made from: its binding. */
export interface GrantMandate {
  /** `ns:mandate:<uuid>` or `ns:allowance:<uuid>` */
  mandate_id: string;
  format: 'ap2' | 'acp';
  /** base64url SHA-256 of the stored document */
  digest: string;
  /** one purchase only (an ACP allowance, an AP2 closed mandate) */
  single_use: boolean;
  /** a single-use mandate already allowed its purchase */
  used: boolean;
}

export type GrantState = 'active' | 'revoked' | 'suspended';

export interface GrantSnapshot {
  grant_id: string;
  /** null for the root grant */
  parent_grant_id: string | null;
  principal_entity_id: string;
  actor_entity_id: string;
  capability_id: string;
  /** the card token credential `ns:credential:card-token:<id>` */
  resource_id: string;
  state: GrantState;
  /** the grant's own scope; an omitted field inherits the parent's value (CONTRACT section 5) */
  scope: GrantScope;
  /** reserved + settled today (UTC day) against this grant and its subtree */
  spent_today: MinorMoney;
  /** number of ancestors: 0 for the root */
  depth: number;
  /** the link's signatures (service and, when registered, delegator) verified */
  signature_valid: boolean;
  /**
   * State of this link's actor entity. REQUIRED on every link but the leaf: that actor is an intermediary who
   * delegated the next link, and a suspended or erased intermediary stops every grant below it (`authority_revoked`)
   * without any grant being rewritten. Ignored on the leaf, whose actor is `snapshot.actor`. Added in
   * aar-decide/1.1.0: a multi-link chain without it is `delegation_invalid` (fail closed).
   */
  actor_state?: EntityState;
  /**
   * aar-decide/1.4.0: reserved + settled in the current period of this link's own `scope.budget` against this grant
   * and its subtree, before this request. REQUIRED when the link's own scope has `budget`: missing or malformed is
   * `budget_exceeded` (fail closed).
   */
  budget_spent?: MinorMoney;
  /** aar-decide/1.4.0: present when the grant was made from a mandate or allowance */
  mandate?: GrantMandate;
}

export type GrantLookup = 'found' | 'authority_not_found' | 'capability_not_granted';

export interface MerchantSnapshot {
  merchant_id: string;
  /** ISO 18245 MCC (`"5411"`) or a named category; compared as exact strings */
  category: string;
  /** ISO 3166-1 alpha-2 */
  jurisdiction: string;
  state: 'active' | 'suspended';
}

export type RiskState = 'normal' | 'elevated' | 'blocked';

export interface RiskSnapshot {
  actor: RiskState;
  principal: RiskState;
  instrument: RiskState;
}

/** The request fields an approval was granted for; a retry must repeat them exactly. */
export interface ApprovalBinding {
  actor_entity_id: string;
  principal_entity_id: string;
  subject: string;
  merchant_id?: string;
  amount?: MinorMoney;
  instrument_id?: string;
  basket_hash?: string;
}

/** `consumed`: an approval allows one purchase; once a retry was allowed by it, it is spent. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'consumed';

export interface ApprovalSnapshot {
  approval_id: string;
  /** the `require_approval` decision that created the approval; a retry names it */
  policy_decision_id: string;
  status: ApprovalStatus;
  expires_at: string;
  bound: ApprovalBinding;
}

export interface PolicySnapshot {
  /** `ns:policy:<name>` */
  policy_id: string;
  version: string;
}

/** Every fact decide reads. The server loads it, evidence packs store it, replay re-runs decide on it. */
export interface DecisionSnapshot {
  payload: PayloadSnapshot;
  principal: EntitySnapshot | null;
  actor: EntitySnapshot | null;
  instrument: InstrumentSnapshot | null;
  /** the chain covering the request, ROOT FIRST, leaf last; empty when none */
  grants: GrantSnapshot[];
  /**
   * aar-decide/1.2.0: every further chain that also covers the request (same actor, principal, capability and
   * instrument), each root first, in the server's order of preference after `grants`. decide evaluates `grants` and
   * each of these and keeps the most permissive outcome (allow, then require_approval, then deny); among equal
   * outcomes the earliest wins, `grants` first. Absent (older snapshots) or empty: `grants` decides alone.
   */
  alternatives?: GrantSnapshot[][];
  grant_lookup: GrantLookup;
  merchant: MerchantSnapshot | null;
  risk: RiskSnapshot;
  /** the approval named by `request.policy_decision_id`, else null */
  approval: ApprovalSnapshot | null;
  policy: PolicySnapshot;
  /** aar-decide/1.3.0: facts only rules read (counters, local time); absent when no active rule reads them */
  facts?: DecisionFacts;
  /**
   * aar-decide/1.3.0: the active rule packs (signed documents, activation order) and the dictionaries they read.
   * Absent: decide behaves exactly as 1.2.0.
   */
  policy_set?: PolicySetSnapshot;
  /**
   * aar-decide/1.5.0: the actor's latest metadata attestation, null when it has attested none. Absent (earlier
   * snapshots): as null, which only matters to a request that presents `agent_metadata`.
   */
  agent_metadata?: AttestedAgentMetadata | null;
}

export type BuiltInObligation = { type: 'audit.emit' } | { type: 'basket_hash_binding'; basket_hash: string };

/** aar-decide/1.3.0: the built-in obligations, then those of matched rules (`{ type, ... }`). */
export type Obligation = BuiltInObligation | RuleObligation;

export type StopCondition = 'actor.stop_signal' | 'delegation.revoked' | 'scope.attenuated';

/** aar-decide/1.3.0: the built-in stop conditions, then those of matched rules (`stop_condition` terms). */
export type DecisionStopCondition = StopCondition | (string & {});

export type CheckOutcome = 'pass' | 'fail' | 'skip';

export interface CheckDiagnostic {
  check: CheckName;
  outcome: CheckOutcome;
  /** on `fail`: the reason this check named; on the approval check's `pass`: `approved_by_principal` */
  reason?: ReasonCode;
  /** which grant id, field or value decided; never a display name */
  detail?: string;
}

export interface DecisionDiagnostics {
  /** every check of CHECK_ORDER, in order; after the deciding one, all are `skip` (of the chain that decided) */
  checks: CheckDiagnostic[];
  /** aar-decide/1.2.0: the leaf grant of the chain that decided; absent when no chain was read */
  grant_id?: string;
  /**
   * aar-decide/1.2.0, only when the snapshot holds `alternatives`: the outcome under each chain, in snapshot order
   * (`grants` first), and the index of the one kept.
   */
  candidates?: CandidateOutcome[];
  chosen_candidate?: number;
  /**
   * aar-decide/1.3.0, only when the snapshot holds a `policy_set` and the rules were evaluated (no built-in deny
   * came first): every matched rule of the enforce packs, in pack then rule order.
   */
  rules?: RuleDiagnostic[];
}

/** What one covering chain alone would have decided. */
export interface CandidateOutcome {
  /** the chain's leaf grant, or null when the chain has none */
  grant_id: string | null;
  decision: Decision;
  reason: DecisionReason;
}

/** What the server must reserve atomically on every listed grant before answering an allowed `execute`. */
export interface Reservation {
  amount: MinorMoney;
  /** the whole chain that decided, root first */
  grant_ids: string[];
}

export interface DecisionResult {
  decision: Decision;
  /** a rule reason's decision is the rule's effect (see `decisionOfReason`) */
  reason: DecisionReason;
  /**
   * `audit.emit` always; `basket_hash_binding` when a basket is bound and the decision is not a deny (1.2.0); then
   * the matched rules' obligations, deduplicated, unless the decision is a deny (1.3.0)
   */
  obligations: Obligation[];
  /** the caller must stop acting on an allow when any occurs; empty unless allowed */
  stop_conditions: DecisionStopCondition[];
  diagnostics: DecisionDiagnostics;
  /** allowed `execute` only */
  reservation?: Reservation;
  /** intersection of the chain's scopes; present once the chain check passed */
  effective_scope?: GrantScope;
  /**
   * aar-decide/1.3.0, when the rules were evaluated and the policy set holds shadow packs: what each shadow pack
   * alone would have decided. Never decisive.
   */
  shadow?: ShadowOutcome[];
}
