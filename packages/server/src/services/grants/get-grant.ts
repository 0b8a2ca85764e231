import { parseMintedId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { grantNotFound } from './create-grant.ts';
import { grantView, type GrantView } from './grant-view.ts';

export async function getGrant(ctx: AppContext, rawId: string): Promise<GrantView> {
  const id = parseMintedId('authority:grant', rawId, '/params/id');
  const row = await ctx.store.db.selectFrom('grants').selectAll().where('grant_id', '=', id).executeTakeFirst();
  if (!row) throw grantNotFound(id);
  return grantView(row);
}
