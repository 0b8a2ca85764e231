/**
 * The decision map (SPEC "the service", CONTRACT section 11): the chain principal -> delegation -> actor ->
 * capability -> scope -> state -> policy, closed by the decision and its reason. Plain JSON, signed elsewhere
 * (CONTRACT section 4) and stored in evidence packs, so every member is defined and snake_case.
 */
import type { Decision, ReasonCode } from '../decide/reason-codes.ts';
import type { DecisionRequest, DecisionResult, DecisionSnapshot } from '../decide/types.ts';

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
}

export interface UnsignedDecisionMap {
  schema_version: typeof DECISION_MAP_SCHEMA;
  /** `ns:decision_map:<uuid>` */
  decision_map_id: string;
  /** `ns:decision:<uuid>` */
  policy_decision_id: string;
  decision: Decision;
  reason: ReasonCode;
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
