import type { DecisionResult } from '@aar/core';
import type { ApprovalStatus } from '../../store/index.ts';

/** The authorize answer (HTTP 200 for every decision, deny included; CONTRACT section 3). */
export interface AuthorizeResponse {
  policy_decision_id: string;
  decision: DecisionResult['decision'];
  reason: DecisionResult['reason'];
  obligations: DecisionResult['obligations'];
  stop_conditions: DecisionResult['stop_conditions'];
  evidence_refs: string[];
  decision_map_ref: string;
  audit_ref: string;
  decision_map: Record<string, unknown>;
  /** on `require_approval`, and on an allowed `purchase.request_approval` (the approval it pushed) */
  approval?: { approval_id: string; status: ApprovalStatus; expires_at: string };
}
