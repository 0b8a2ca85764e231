/**
 * Step 8: the principal's approval. Without `policy_decision_id`, an amount over any link's `requires_approval_above`
 * (money-moving actions only: preparing a basket needs no approval) requires approval. With it, the retry is judged by
 * the approval it names, whether or not one is still required: the binding first (a retry that differs from what
 * was approved is refused before its status is read), then rejected, expired (status or `expires_at <= now`),
 * consumed (an approval allows one purchase), pending, approved.
 * Precondition: the chain check passed, so `ctx.scopes` holds well-formed scopes.
 */
import { MONEY_MOVING_ACTIONS } from '../action-from-subject.ts';
import { isRecord } from '../guards.ts';
import { compareInstants, parseInstant } from '../instant.ts';
import { sameEntity, sameInstrument } from '../same-ref.ts';
import type { DecisionRequest } from '../types.ts';
import { fail, idOf, pass, quote, type CheckContext, type CheckVerdict } from './check-context.ts';

export function checkApproval(ctx: CheckContext): CheckVerdict {
  const { request } = ctx;
  if (request.policy_decision_id === undefined) {
    const over = findThresholdExceeded(ctx);
    if (over) return fail('amount_above_approval_threshold', over);
    return pass('no approval required');
  }
  const approval: unknown = ctx.snapshot.approval;
  if (!isRecord(approval) || approval.policy_decision_id !== request.policy_decision_id) {
    return fail('approval_mismatch', `no approval for decision ${quote(request.policy_decision_id)}`);
  }
  const id = quote(approval.approval_id);
  const differs = findBindingDifferences(request, ctx.basket.hash, approval.bound);
  if (differs.length > 0) return fail('approval_mismatch', `retry differs from approval ${id}: ${differs.join(', ')}`);
  if (approval.status === 'rejected') return fail('approval_rejected', `approval ${id} rejected`);
  const expiresAt = parseInstant(approval.expires_at);
  if (approval.status === 'expired' || !expiresAt || !ctx.now || compareInstants(expiresAt, ctx.now) <= 0) {
    return fail('approval_expired', `approval ${id} expired`);
  }
  // One approval, one purchase: a second retry with a spent approval is refused like an expired one.
  if (approval.status === 'consumed') return fail('approval_expired', `approval ${id} already used`);
  if (approval.status === 'pending') return fail('approval_pending', `approval ${id} pending`);
  if (approval.status !== 'approved')
    return fail('approval_rejected', `approval ${id} status ${quote(approval.status)}`);
  return { outcome: 'pass', reason: 'approved_by_principal', detail: `approval ${id}` };
}

function findThresholdExceeded(ctx: CheckContext): string | undefined {
  const amount = ctx.request.amount;
  if (!amount || ctx.action === undefined || !MONEY_MOVING_ACTIONS.includes(ctx.action)) return undefined;
  for (const [i, scope] of (ctx.scopes ?? []).entries()) {
    const threshold = scope.requires_approval_above;
    if (threshold && amount.minor > threshold.minor) {
      return `over grant ${idOf(ctx.grants, i)} requires_approval_above`;
    }
  }
  return undefined;
}

/** Names of the bound fields in which the request differs from what the principal approved. */
function findBindingDifferences(request: DecisionRequest, basketHash: string | undefined, bound: unknown): string[] {
  if (!isRecord(bound)) return ['bound'];
  const differs: string[] = [];
  if (!sameEntity(request.actor_entity_id, bound.actor_entity_id)) differs.push('actor_entity_id');
  if (!sameEntity(request.principal_entity_id, bound.principal_entity_id)) differs.push('principal_entity_id');
  if (request.subject !== bound.subject) differs.push('subject');
  if (request.merchant_id !== bound.merchant_id) differs.push('merchant_id');
  if (!sameOptional(request.amount, bound.amount, sameMoney)) differs.push('amount');
  if (!sameOptional(request.instrument_id, bound.instrument_id, sameInstrument)) differs.push('instrument_id');
  if (basketHash !== bound.basket_hash) differs.push('basket_hash');
  return differs;
}

function sameOptional<T>(a: T | undefined, b: unknown, same: (a: T, b: unknown) => boolean): boolean {
  return a === undefined ? b === undefined : same(a, b);
}

function sameMoney(a: unknown, b: unknown): boolean {
  return isRecord(a) && isRecord(b) && a.minor === b.minor && a.currency === b.currency;
}
