import type { AppContext } from '../../app-context.ts';
import { toPage, type Page, type PageRequest } from '../../routes/pagination.ts';
import type { GrantState } from '../../store/index.ts';
import { effectiveGrantRow, selectGrants } from './grant-rows.ts';
import { notRunArtifact } from '../conformance/run-artifacts.ts';
import { grantView, type GrantView } from './grant-view.ts';

export interface GrantFilter {
  principal_entity_id?: string | undefined;
  actor_entity_id?: string | undefined;
  state?: GrantState | undefined;
  /** only the direct children of this grant */
  parent_grant_id?: string | undefined;
  /** also what conformance-kit runs created (left out by default) */
  includeConformance?: boolean | undefined;
}

export async function listGrants(ctx: AppContext, page: PageRequest, filter: GrantFilter): Promise<Page<GrantView>> {
  let query = selectGrants(ctx.store.db)
    .where('grants.seq', '>', page.afterSeq)
    .orderBy('grants.seq')
    .limit(page.limit + 1);
  if (filter.principal_entity_id) query = query.where('grants.principal_entity_id', '=', filter.principal_entity_id);
  if (filter.actor_entity_id) query = query.where('grants.actor_entity_id', '=', filter.actor_entity_id);
  if (filter.parent_grant_id) query = query.where('grants.parent_grant_id', '=', filter.parent_grant_id);
  if (!filter.includeConformance) query = query.where(notRunArtifact('grants.grant_id'));
  if (filter.state === 'active') {
    query = query.where('grants.state', '=', 'active').where('grant_revocations.grant_id', 'is', null);
  } else if (filter.state === 'revoked') {
    query = query.where((eb) =>
      eb.or([eb('grants.state', '=', 'revoked'), eb('grant_revocations.grant_id', 'is not', null)]),
    );
  }
  return toPage(await query.execute(), page.limit, (row) => grantView(effectiveGrantRow(row)));
}
