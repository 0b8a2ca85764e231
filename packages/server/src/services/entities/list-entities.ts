import type { AppContext } from '../../app-context.ts';
import { toPage, type Page, type PageRequest } from '../../routes/pagination.ts';
import type { EntitiesTable } from '../../store/index.ts';
import { notRunArtifact } from '../conformance/run-artifacts.ts';
import { entityView, type EntityView } from './entity-view.ts';

export interface EntityFilter {
  type?: EntitiesTable['type'] | undefined;
  state?: EntitiesTable['state'] | undefined;
  /** also what conformance-kit runs created (left out by default) */
  includeConformance?: boolean | undefined;
}

export async function listEntities(
  ctx: AppContext,
  page: PageRequest,
  filter: EntityFilter = {},
): Promise<Page<EntityView>> {
  let query = ctx.store.db
    .selectFrom('entities')
    .selectAll()
    .where('seq', '>', page.afterSeq)
    .orderBy('seq')
    .limit(page.limit + 1);
  if (filter.type) query = query.where('type', '=', filter.type);
  if (filter.state) query = query.where('state', '=', filter.state);
  if (!filter.includeConformance) query = query.where(notRunArtifact('entities.entity_id'));
  return toPage(await query.execute(), page.limit, entityView);
}
