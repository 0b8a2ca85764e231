/**
 * Builds the unsigned decision map of one decision. Pure: ids and `issued_at` are arguments. The result is plain JSON
 * with no undefined member, so its RFC 8785 bytes (what signDocument signs) depend only on the input.
 */
import {
  actorNode,
  capabilityNode,
  delegationNode,
  policyNode,
  principalNode,
  scopeNode,
  stateNode,
  type NodeInput,
} from './node-labels.ts';
import { DECISION_MAP_SCHEMA, type BuildDecisionMapInput, type UnsignedDecisionMap } from './types.ts';

export function buildDecisionMap(input: BuildDecisionMapInput): UnsignedDecisionMap {
  const nodeInput: NodeInput = { request: input.request, snapshot: input.snapshot, result: input.result };
  return {
    schema_version: DECISION_MAP_SCHEMA,
    decision_map_id: input.decision_map_id,
    policy_decision_id: input.policy_decision_id,
    decision: input.result.decision,
    reason: input.result.reason,
    // The spec's order: principal, delegation, actor, capability, scope, state, policy (then the decision).
    nodes: [
      principalNode(nodeInput),
      delegationNode(nodeInput),
      actorNode(nodeInput),
      capabilityNode(nodeInput),
      scopeNode(nodeInput),
      stateNode(nodeInput),
      policyNode(nodeInput),
    ],
    audit_ref: input.audit_ref,
    evidence_refs: [...input.evidence_refs],
    issued_at: input.issued_at,
  };
}
