import type { AppContext } from '../../app-context.ts';
import { toPage, type Page, type PageRequest } from '../../routes/pagination.ts';
import { notRunArtifact } from '../conformance/run-artifacts.ts';
import { cardTokenView, type CardTokenView } from './card-token-view.ts';

export async function listCardTokens(
  ctx: AppContext,
  page: PageRequest,
  principalEntityId?: string,
  /** also what conformance-kit runs created (left out by default) */
  includeConformance = false,
): Promise<Page<CardTokenView>> {
  let query = ctx.store.db
    .selectFrom('card_tokens')
    .selectAll()
    .where('seq', '>', page.afterSeq)
    .orderBy('seq')
    .limit(page.limit + 1);
  if (principalEntityId) query = query.where('principal_entity_id', '=', principalEntityId);
  if (!includeConformance) query = query.where(notRunArtifact('card_tokens.card_token_id'));
  return toPage(await query.execute(), page.limit, cardTokenView);
}
