/**
 * The decision map (SPEC "the service", CONTRACT section 11): the chain principal -> delegation -> actor ->
 * capability -> scope -> state -> policy, closed by the decision and its reason. Plain JSON, signed elsewhere
 * (CONTRACT section 4) and stored in evidence packs, so every member is defined and snake_case.
 */
import type { Decision } from '../decide/reason-codes.ts';
import type {
  AgentMetadata,
  DecisionReason,
  DecisionRequest,
  DecisionResult,
  DecisionSnapshot,
} from '../decide/types.ts';
import type { ActivationMode } from '../rules/types.ts';

export const DECISION_MAP_SCHEMA = 'ns.decision_map.v1';

export const DECISION_MAP_NODE_TYPES = [
  'principal',
  'delegation',
  'actor',
  'capability',
  'scope',
  'state',
  'policy',
] as const;

export type DecisionMapNodeType = (typeof DECISION_MAP_NODE_TYPES)[number];

export interface DecisionMapNode {
  type: DecisionMapNodeType;
  /** an id: an entity, grant (a direct grant), `ns:delegation:<id>` (a chain), capability, `ns:scope:<id>`, `ns:state:<name>` or `ns:policy:<name>` */
  ref: string;
  /** a short display label; never a display name or other personal data */
  short: string;
  /**
   * `policy` node only, when the snapshot holds a `policy_set` (aar-decide/1.3.0): every active pack, in the
   * snapshot's order, with the digest of the signed document the snapshot carries (policyDocumentDigest)
   */
  packs?: PolicyNodePack[];
  /**
   * `delegation` node only, when the deciding chain's leaf grant was made from a mandate or allowance
   * (aar-decide/1.4.0, `grant.mandate`): its id, `ns:mandate:<uuid>` or `ns:allowance:<uuid>`
   */
  mandate_ref?: string;
  /**
   * `actor` node only, when the snapshot holds the agent's attested metadata (aar-decide/1.5.0,
   * `snapshot.agent_metadata`): the attested model, software version and operator
   */
  agent_metadata?: AgentMetadata;
  /** `actor` node only, with `agent_metadata`: the digest of the signed attestation the evidence pack carries */
  attestation_digest?: string;
}

export interface PolicyNodePack {
  pack_id: string;
  version: string;
  /** `sha-256:` + base64url of the pack document without `signature` */
  digest: string;
  mode: ActivationMode;
}

export interface UnsignedDecisionMap {
  schema_version: typeof DECISION_MAP_SCHEMA;
  /** `ns:decision_map:<uuid>` */
  decision_map_id: string;
  /** `ns:decision:<uuid>` */
  policy_decision_id: string;
  decision: Decision;
  reason: DecisionReason;
  /** exactly seven, in DECISION_MAP_NODE_TYPES order */
  nodes: DecisionMapNode[];
  /** `ns:audit:<uuid>` */
  audit_ref: string;
  evidence_refs: string[];
  /** ISO 8601 UTC */
  issued_at: string;
}

export interface BuildDecisionMapInput {
  decision_map_id: string;
  policy_decision_id: string;
  audit_ref: string;
  evidence_refs: readonly string[];
  issued_at: string;
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  /** what `decide(request, snapshot, now)` returned */
  result: DecisionResult;
}
