import { parseMintedId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { grantNotFound } from './create-grant.ts';
import { effectiveGrantRow, selectGrants } from './grant-rows.ts';
import { grantView, type GrantView } from './grant-view.ts';

export async function getGrant(ctx: AppContext, rawId: string): Promise<GrantView> {
  const id = parseMintedId('authority:grant', rawId, '/params/id');
  const row = await selectGrants(ctx.store.db).where('grants.grant_id', '=', id).executeTakeFirst();
  if (!row) throw grantNotFound(id);
  return grantView(effectiveGrantRow(row));
}
