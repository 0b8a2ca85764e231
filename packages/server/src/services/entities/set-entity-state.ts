import { AarError, parseEntityId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { entityView, type EntityView } from './entity-view.ts';

/**
 * Suspends or reactivates an entity. Suspension stops every grant that depends on the entity (authorize checks
 * entity state) without rewriting the grants. Tombstoned entities cannot come back. Re-applying the current state
 * is a no-op that writes no event.
 */
export async function setEntityState(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
  target: 'active' | 'suspended',
): Promise<EntityView> {
  const { id } = parseEntityId(rawId, '/params/id');
  return ctx.writer.run(async (trx) => {
    const row = await trx.selectFrom('entities').selectAll().where('entity_id', '=', id).executeTakeFirst();
    if (!row) throw new AarError('not_found', `entity \`${id}\` does not exist`);
    if (row.state === 'tombstoned') throw new AarError('conflict', `entity \`${id}\` is tombstoned`);
    if (row.state === target) return entityView(row);
    const now = ctx.clock.now().toISOString();
    const updated = await trx
      .updateTable('entities')
      .set({ state: target, updated_at: now })
      .where('entity_id', '=', id)
      .where('state', '=', row.state)
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw new AarError('conflict', `entity \`${id}\` changed concurrently; retry`);
    await appendEvent(trx, ctx, {
      event_type: target === 'suspended' ? 'ns.entity.suspended' : 'ns.entity.activated',
      actor_entity_id: actorOf(credential),
      principal_entity_id: row.type === 'agent' ? null : id,
      subject_ref: id,
      reason_code: target === 'suspended' ? 'entity_suspended' : 'entity_activated',
      data: { previous_state: row.state, new_state: target },
    });
    return entityView(updated);
  });
}
