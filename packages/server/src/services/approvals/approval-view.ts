import type { ApprovalBinding, PurchaseAction } from '@aar/core';
import { actionFromSubject, moneyToJson } from '@aar/core';
import type { Selectable } from 'kysely';
import type { ApprovalsTable } from '../../store/index.ts';

export interface ApprovalView {
  approval_id: string;
  policy_decision_id: string;
  principal_entity_id: string;
  actor_entity_id: string;
  status: ApprovalsTable['status'];
  reason: string;
  /**
   * what the principal is asked to approve; a retry must repeat it exactly. `action` is read from `subject`;
   * `basket` is the decision's basket when it hashes to `basket_hash` (approval-basket.ts)
   */
  request: Omit<ApprovalBinding, 'amount'> & {
    amount?: { amount: number; currency: string };
    action?: PurchaseAction;
    basket?: Record<string, unknown>;
  };
  expires_at: string;
  decided_at: string | null;
  sca_reference: string | null;
  consumed_by: string | null;
  created_at: string;
}

/** An approval past its expiry reads as `expired` even before anything wrote that state. */
export function approvalView(row: Selectable<ApprovalsTable>, nowIso: string): ApprovalView {
  const bound = JSON.parse(row.bound) as ApprovalBinding;
  const { amount, ...rest } = bound;
  const action = actionFromSubject(bound.subject);
  const status =
    (row.status === 'pending' || row.status === 'approved') && row.expires_at <= nowIso ? 'expired' : row.status;
  return {
    approval_id: row.approval_id,
    policy_decision_id: row.policy_decision_id,
    principal_entity_id: row.principal_entity_id,
    actor_entity_id: row.actor_entity_id,
    status,
    reason: row.reason,
    request: { ...rest, ...(action ? { action } : {}), ...(amount ? { amount: moneyToJson(amount) } : {}) },
    expires_at: row.expires_at,
    decided_at: row.decided_at,
    sca_reference: row.sca_reference,
    consumed_by: row.consumed_by,
    created_at: row.created_at,
  };
}
