/**
 * Memory records in a search (helper "memory"'s tables, services/memory): the ACTIVE records the caller may see,
 * newest first, each in the shape `GET /v1/memory/records` lists it (services/memory/memory-view.ts: the signed
 * record form, the content and its salt, no tombstone while active; built here from the same columns). The text
 * `query` matches the content's RFC 8785 text case-insensitively as a substring; ended records (erased, purged) hold
 * no content and are not searched.
 * Privacy invariant: the stored, signed search result commits to each record by the digest of the item shown (which
 * includes the content), never by a copy of it, so erasure and the retention purge leave no content behind here.
 */
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { KindAnswer } from './search-kinds.ts';
import type { SearchPlan } from './search-request.ts';

export async function searchMemoryRecords(ctx: AppContext, plan: SearchPlan): Promise<KindAnswer> {
  let q = ctx.store.db
    .selectFrom('memory_records as r')
    .innerJoin('memory_contents as c', 'c.memory_record_id', 'r.memory_record_id')
    .selectAll('r')
    .select(['c.content as content_text', 'c.salt as content_salt'])
    .where('r.state', '=', 'active');
  if (plan.principal_entity_id !== undefined) q = q.where('r.principal_entity_id', '=', plan.principal_entity_id);
  if (plan.actor_entity_id !== undefined) q = q.where('r.agent_entity_id', '=', plan.actor_entity_id);
  if (plan.classification !== undefined) q = q.where('r.classification', '=', plan.classification);
  if (plan.since !== undefined) q = q.where('r.created_at', '>=', plan.since);
  if (plan.until !== undefined) q = q.where('r.created_at', '<', plan.until);
  if (plan.pattern !== undefined) q = q.where(sql<boolean>`lower(c.content) like ${plan.pattern} escape '\\'`);
  const rows = await q
    .orderBy('r.seq', 'desc')
    .limit(plan.limit + 1)
    .execute();
  return {
    more: rows.length > plan.limit,
    items: rows.slice(0, plan.limit).map(({ content_text, content_salt, ...row }) => ({
      id: row.memory_record_id,
      item: {
        memory_record_id: row.memory_record_id,
        state: row.state,
        record: JSON.parse(row.record) as unknown,
        content: JSON.parse(content_text) as unknown,
        content_salt,
        tombstone: null,
      },
    })),
  };
}
