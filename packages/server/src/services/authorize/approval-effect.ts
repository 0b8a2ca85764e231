/**
 * What a decision does to approvals, from its request, its result and the approval it held (the snapshot's, read
 * under lock): the one rule commit-decision.ts writes by and the record checkers (audit/record-checks/) check by, so
 * a decision's stored `approval_id`, its entry's kind and an approval's origin are judged exactly as they were made.
 * - `consume`: an allowed retry on an approved approval (`approved_by_principal`) spends the held approval;
 * - `pending`: a retry on a still pending approval answers it again (`approval_pending`);
 * - `create`: a `require_approval` creates a new approval for the request's own subject;
 * - `push`: an allowed `purchase.request_approval` creates one bound to the purchase itself (CARD_PURCHASE_CAPABILITY)
 *   and announces it as `ns.decision.requires_approval` (CONTRACT section 9);
 * - `none`: any other decision creates nothing and names the held approval, if any.
 */
import { CARD_PURCHASE_CAPABILITY, computeBasketHash, type DecisionRequest } from '@aar/core';
import { DECISION_ENTRY_KIND } from '../../audit/record-checks/decision-kinds.ts';

export type ApprovalEffect = 'consume' | 'pending' | 'create' | 'push' | 'none';

export function approvalEffect(
  request: { action: string },
  result: { decision: string; reason: string },
  heldApprovalId: string | null,
): ApprovalEffect {
  if (heldApprovalId !== null && result.reason === 'approved_by_principal') return 'consume';
  if (heldApprovalId !== null && result.reason === 'approval_pending') return 'pending';
  if (result.decision === 'require_approval') return 'create';
  if (request.action === 'request_approval' && result.decision === 'allow_with_constraints') return 'push';
  return 'none';
}

/** Whether the decision created an approval of its own (its `approval_id` is then a new one). */
export function createsApproval(effect: ApprovalEffect): boolean {
  return effect === 'create' || effect === 'push';
}

/** The subject the created approval binds: the purchase itself for a pushed ask, else the request's subject. */
export function approvalSubject(effect: ApprovalEffect, requestSubject: string): string {
  return effect === 'push' ? CARD_PURCHASE_CAPABILITY : requestSubject;
}

/** The kind of the decision's audit entry and event type (an allowed ask announces the approval it pushes). */
export function decisionEntryKind(decision: string, effect: ApprovalEffect): string | undefined {
  return effect === 'push' ? 'ns.decision.requires_approval' : DECISION_ENTRY_KIND[decision];
}

/**
 * What an approval the decision created is bound to (the approvals row's `bound`): who, what, where, how much, with
 * which card and basket, from the decision's request. A retry is allowed only for exactly this.
 */
export function approvalBound(request: DecisionRequest, effect: ApprovalEffect): Record<string, unknown> {
  return {
    actor_entity_id: request.actor_entity_id,
    principal_entity_id: request.principal_entity_id,
    subject: approvalSubject(effect, request.subject),
    ...(request.merchant_id !== undefined ? { merchant_id: request.merchant_id } : {}),
    ...(request.amount ? { amount: request.amount } : {}),
    ...(request.instrument_id !== undefined ? { instrument_id: request.instrument_id } : {}),
    ...(request.basket !== undefined ? { basket_hash: computeBasketHash(request.basket) } : {}),
  };
}
