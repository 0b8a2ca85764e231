import { AarError, parseEntityId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { entityView, type EntityView } from './entity-view.ts';

export async function getEntity(ctx: AppContext, rawId: string): Promise<EntityView> {
  const { id } = parseEntityId(rawId, '/params/id');
  const row = await ctx.store.db.selectFrom('entities').selectAll().where('entity_id', '=', id).executeTakeFirst();
  if (!row) throw new AarError('not_found', `entity \`${id}\` does not exist`);
  return entityView(row);
}
