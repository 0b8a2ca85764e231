/**
 * The basket an approval binds, shown to the principal who decides it. The approval row keeps only the basket's hash
 * (`bound.basket_hash`); the basket itself is in the record of the decision that asked for the approval (its request,
 * as the agent sent it). Read-only: nothing is written.
 * Invariant: a basket is shown only when it hashes to the approval's `basket_hash`, so the principal never sees items
 * other than the ones the approval binds. Attacker assumption: the decision row may have been edited in the database;
 * a record that does not decode, or a basket that does not match the bound hash, shows no basket (fail closed), and
 * the approval itself reads as before.
 */
import { computeBasketHash } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { decisionRequestOf } from '../decisions/stored-decision.ts';
import type { ApprovalView } from './approval-view.ts';

/** Each view with `request.basket` added where its decision's basket matches the bound hash; one query per call. */
export async function withBaskets(ctx: AppContext, views: ApprovalView[]): Promise<ApprovalView[]> {
  const wanted = views.filter((v) => v.request.basket_hash !== undefined).map((v) => v.policy_decision_id);
  if (wanted.length === 0) return views;
  const rows = await ctx.store.db
    .selectFrom('decisions')
    .select(['policy_decision_id', 'request', 'snapshot', 'result', 'decision_map', 'record', 'now', 'engine_version'])
    .where('policy_decision_id', 'in', [...new Set(wanted)])
    .execute();
  const baskets = new Map<string, unknown>();
  for (const row of rows) {
    try {
      baskets.set(row.policy_decision_id, decisionRequestOf(row).basket);
    } catch {
      // an undecodable record shows no basket; verify reports the record itself (GET /v1/audit/verify)
    }
  }
  return views.map((view) => {
    const basket = baskets.get(view.policy_decision_id);
    if (basket === undefined || !hashesTo(basket, view.request.basket_hash)) return view;
    return { ...view, request: { ...view.request, basket: basket as Record<string, unknown> } };
  });
}

function hashesTo(basket: unknown, hash: string | undefined): boolean {
  try {
    return hash !== undefined && computeBasketHash(basket) === hash;
  } catch {
    return false;
  }
}
