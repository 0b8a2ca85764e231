/**
 * The authority graph's inputs and answers (issue 30, CONTRACT section 22). Inputs are plain rows, as the store holds
 * them (scopes already in decide's form: integer minor units, actions without their `purchase.` prefix), so the same
 * functions run in the server, in a browser or over a stored snapshot. Answers are JSON: snake_case, money as
 * `{ minor, currency }` integer minor units (decide's form), absent values as null.
 */
import type { Budget, EntityState, GrantScope, GrantState, MinorMoney, PurchaseAction } from '../decide/types.ts';

/** One grant row: a delegation link from its parent (or from the principal, for a root) to its actor. */
export interface GraphGrant {
  grant_id: string;
  parent_grant_id: string | null;
  root_grant_id: string;
  /** ancestors above it: 0 for a root grant */
  depth: number;
  principal_entity_id: string;
  actor_entity_id: string;
  capability_id: string;
  /** `ns:card_token:<id>` */
  card_token_id: string;
  /** the effective state (a cascade's revocation row counts as revoked) */
  state: GrantState;
  /** the grant's OWN scope; an omitted field inherits the parent's (CONTRACT section 5) */
  scope: GrantScope;
  /** the mandate or allowance the grant was made from, null otherwise */
  mandate_id: string | null;
}

export interface GraphEntity {
  entity_id: string;
  type: 'person' | 'organisation' | 'agent';
  state: EntityState;
}

export interface GraphCardToken {
  /** `ns:card_token:<id>` */
  card_token_id: string;
  principal_entity_id: string;
  state: 'active' | 'suspended';
}

export interface GraphMandate {
  mandate_id: string;
  grant_id: string;
  format: 'ap2' | 'acp';
  single_use: boolean;
  /** a single-use mandate already allowed its purchase */
  used: boolean;
  expires_at: string | null;
}

export interface GraphMerchant {
  merchant_id: string;
  category: string;
  jurisdiction: string;
  state: 'active' | 'suspended';
}

/**
 * The facts a query reads. `grants` must hold every ancestor of every grant a query starts from (the server loads
 * them by id); a grant whose ancestor is missing reads as unusable (`delegation_invalid`), never as usable.
 * `spent_today`: each grant's own spend counter of `day` (reserved + settled, its whole subtree: the counter authorize
 * reads); a grant without one has spent nothing today.
 */
export interface GraphRows {
  grants: readonly GraphGrant[];
  entities: readonly GraphEntity[];
  card_tokens: readonly GraphCardToken[];
  mandates: readonly GraphMandate[];
  merchants: readonly GraphMerchant[];
  spent_today: Readonly<Record<string, MinorMoney>>;
  /**
   * grants known to have at least one child even when the children are not among `grants` (a page of leaves): their
   * actors delegated further, so they are intermediaries. Optional: without it only the loaded children count.
   */
  grants_with_children?: readonly string[];
}

/** Why a path cannot be used now: decide's reason code for the first failing fact (CONTRACT section 3 order). */
export type PathBlock =
  | 'principal_inactive'
  | 'actor_inactive'
  | 'instrument_inactive'
  | 'instrument_not_bound'
  | 'authority_revoked'
  | 'mandate_revoked'
  | 'authority_expired'
  | 'mandate_expired'
  | 'allowance_used'
  | 'delegation_invalid';

/**
 * What one path (a root-first chain of grants ending at `leaf_grant_id`) conveys now: the effective scope of the whole
 * chain (core computeEffectiveScope: lowest amounts, earliest valid_until, intersected allowed lists, unioned blocked
 * lists) and today's remaining daily amount through every link.
 */
export interface EffectiveLimits {
  usable: boolean;
  blocked_by: PathBlock | null;
  /** the purchase actions the leaf's capability covers, narrowed by every link's allowed_actions */
  actions: PurchaseAction[];
  max_amount_per_purchase: MinorMoney | null;
  max_daily_amount: MinorMoney | null;
  /** min over every link with a max_daily_amount of (its limit - its own spend counter today), never below 0 */
  remaining_today: MinorMoney | null;
  /** the most one purchase may move now: min(max_amount_per_purchase, remaining_today); null when neither bounds it */
  max_purchase_now: MinorMoney | null;
  requires_approval_above: MinorMoney | null;
  budget: Budget | null;
  valid_until: string | null;
  allowed_merchant_categories: string[] | null;
  blocked_merchant_categories: string[] | null;
  allowed_jurisdictions: string[] | null;
  allowed_merchants: string[] | null;
  may_delegate: boolean;
  max_delegation_depth: number | null;
}

/** One grant's own link and its spend today, as shown beside a path. */
export interface PathLink {
  grant_id: string;
  depth: number;
  actor_entity_id: string;
  state: GrantState;
  mandate_id: string | null;
  max_daily_amount: MinorMoney | null;
  spent_today: MinorMoney | null;
}

/** One way authority reaches an actor: principal -> grant ... -> leaf grant -> actor. */
export interface AuthorityPath {
  principal_entity_id: string;
  actor_entity_id: string;
  /** `agent` or `intermediary` (an actor who delegated further, or a person or organisation) */
  actor_kind: 'agent' | 'intermediary';
  card_token_id: string;
  leaf_grant_id: string;
  capability_id: string;
  /** root first */
  links: PathLink[];
  effective: EffectiveLimits;
}

export type GraphNodeKind = 'principal' | 'intermediary' | 'agent' | 'card_token' | 'grant' | 'mandate' | 'merchant';

export interface GraphNode {
  node_id: string;
  kind: GraphNodeKind;
  /** entities: active|suspended|tombstoned; grants: active|revoked|expired; card tokens and merchants:
   * active|suspended; mandates: active|revoked|expired|used; `unknown` for a merchant not registered */
  state: string;
  /** person|organisation|agent for entity nodes, null otherwise */
  entity_type: string | null;
  /** grant nodes only: the grant's own depth and its path's effective limits; null on other nodes */
  depth: number | null;
  effective: EffectiveLimits | null;
}

export type GraphEdgeKind = 'grants' | 'delegates' | 'held_by' | 'spends_on' | 'made_from' | 'limited_to';

export interface GraphEdge {
  from: string;
  to: string;
  kind: GraphEdgeKind;
  /** the grant the edge belongs to */
  grant_id: string;
}

/** What revoking one grant would cut, without doing it: exactly the grants `POST /v1/grants/{id}/revoke` revokes. */
export interface BlastRadius {
  grant_id: string;
  principal_entity_id: string;
  /** the grant is revoked already: a revoke would cut nothing */
  already_revoked: boolean;
  /** every active grant of the subtree (the grant itself first), root-most first then by grant id */
  grants: BlastGrant[];
  /** distinct actors who lose a grant, and how many each loses */
  agents: { entity_id: string; kind: 'agent' | 'intermediary'; grants_cut: number }[];
  card_tokens: { card_token_id: string; grants_cut: number }[];
  mandates: { mandate_id: string; grant_id: string }[];
}

export interface BlastGrant {
  grant_id: string;
  parent_grant_id: string | null;
  depth: number;
  actor_entity_id: string;
  card_token_id: string;
  mandate_id: string | null;
  /** usable before the revoke (an expired grant is still cut, as the revoke does) */
  usable: boolean;
}
