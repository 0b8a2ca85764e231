/**
 * GET /v1/approvals (CONTRACT section 9: "a principal credential may read its own approvals"). The state filter is
 * the state a reader sees (approval-view.ts): a pending or approved approval past `expires_at` is `expired` whatever
 * its row says, so `state=pending` never offers the principal an approval it can no longer decide.
 */
import type { AppContext } from '../../app-context.ts';
import { toPage, type Page, type PageRequest } from '../../routes/pagination.ts';
import type { ApprovalsTable } from '../../store/index.ts';
import { approvalView, type ApprovalView } from './approval-view.ts';

export type ApprovalState = ApprovalsTable['status'];

export interface ApprovalFilter {
  principal_entity_id?: string | undefined;
  actor_entity_id?: string | undefined;
  state?: ApprovalState | undefined;
}

export async function listApprovals(
  ctx: AppContext,
  page: PageRequest,
  filter: ApprovalFilter,
): Promise<Page<ApprovalView>> {
  const now = ctx.clock.now().toISOString();
  let query = ctx.store.db
    .selectFrom('approvals')
    .selectAll()
    .where('seq', '>', page.afterSeq)
    .orderBy('seq')
    .limit(page.limit + 1);
  if (filter.principal_entity_id) query = query.where('principal_entity_id', '=', filter.principal_entity_id);
  if (filter.actor_entity_id) query = query.where('actor_entity_id', '=', filter.actor_entity_id);
  switch (filter.state) {
    case 'pending':
    case 'approved':
      query = query.where('status', '=', filter.state).where('expires_at', '>', now);
      break;
    case 'expired':
      query = query.where((eb) =>
        eb.or([
          eb('status', '=', 'expired'),
          eb.and([eb('status', 'in', ['pending', 'approved']), eb('expires_at', '<=', now)]),
        ]),
      );
      break;
    case 'rejected':
    case 'consumed':
      query = query.where('status', '=', filter.state);
      break;
    case undefined:
      break;
  }
  return toPage(await query.execute(), page.limit, (row) => approvalView(row, now));
}
