/**
 * POST /v1/approvals/{id}/decision (CONTRACT section 6). Only the principal decides, with a principal-scoped
 * credential bound to that principal: not an admin, not the runtime, not the agent. Strong customer authentication
 * happens at the principal's edge; its reference is recorded. A decided or expired approval cannot change.
 */
import { AarError, parseMintedId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { approvedKey } from '../authorize/chained-approval.ts';
import { chainedStateCacheOf } from '../authorize/chained-state.ts';
import { appendEvent } from '../events/append-event.ts';
import { approvalView, type ApprovalView } from './approval-view.ts';

export interface ApprovalDecisionInput {
  approve: boolean;
  sca_reference?: string | undefined;
}

export async function decideApproval(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
  input: ApprovalDecisionInput,
): Promise<ApprovalView> {
  const id = parseMintedId('approval', rawId, '/params/id');
  const postgres = ctx.store.dialect === 'postgres';
  const view = await ctx.writer.run(async (trx) => {
    let query = trx.selectFrom('approvals').selectAll().where('approval_id', '=', id);
    if (postgres) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw new AarError('not_found', `approval \`${id}\` does not exist`);
    if (credential?.role !== 'principal' || credential.principal_entity_id !== row.principal_entity_id) {
      throw new AarError('forbidden', 'only the principal, with its own principal credential, decides an approval');
    }
    const now = ctx.clock.now().toISOString();
    if (row.status !== 'pending') throw new AarError('conflict', `approval \`${id}\` is already ${row.status}`);
    if (row.expires_at <= now) throw new AarError('conflict', `approval \`${id}\` expired at ${row.expires_at}`);
    const status = input.approve ? 'approved' : 'rejected';
    const updated = await trx
      .updateTable('approvals')
      .set({ status, decided_at: now, sca_reference: input.sca_reference ?? null, updated_at: now })
      .where('approval_id', '=', id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendEvent(trx, ctx, {
      event_type: input.approve ? 'ns.approval.approved' : 'ns.approval.rejected',
      actor_entity_id: row.principal_entity_id,
      principal_entity_id: row.principal_entity_id,
      subject_ref: id,
      reason_code: input.approve ? 'approved_by_principal' : 'rejected_by_principal',
      data: {
        policy_decision_id: row.policy_decision_id,
        previous_state: 'pending',
        new_state: status,
        has_sca_reference: input.sca_reference !== undefined,
      },
    });
    return approvalView(updated, now);
  });
  // committed with its `ns.approval.approved` entry: this instance knows the chain backs it (chained-approval.ts)
  if (input.approve) chainedStateCacheOf(ctx).add(approvedKey(id));
  return view;
}
