import type { AppContext } from '../../app-context.ts';
import { toPage, type Page, type PageRequest } from '../../routes/pagination.ts';
import type { GrantState } from '../../store/index.ts';
import { grantView, type GrantView } from './grant-view.ts';

export interface GrantFilter {
  principal_entity_id?: string | undefined;
  actor_entity_id?: string | undefined;
  state?: GrantState | undefined;
}

export async function listGrants(ctx: AppContext, page: PageRequest, filter: GrantFilter): Promise<Page<GrantView>> {
  let query = ctx.store.db
    .selectFrom('grants')
    .selectAll()
    .where('seq', '>', page.afterSeq)
    .orderBy('seq')
    .limit(page.limit + 1);
  if (filter.principal_entity_id) query = query.where('principal_entity_id', '=', filter.principal_entity_id);
  if (filter.actor_entity_id) query = query.where('actor_entity_id', '=', filter.actor_entity_id);
  if (filter.state) query = query.where('state', '=', filter.state);
  return toPage(await query.execute(), page.limit, grantView);
}
