/**
 * `GET /v1/graph/grants/{id}/blast-radius`: what revoking the grant would cut, computed without revoking (core
 * blastRadius: the same set write-revocation-cascade.ts revokes). The subtree is read by index only: for a root grant
 * one range of `grants_root` (its whole tree carries its id), otherwise level by level through `grants_parent`, at
 * most `max_depth` levels below the grant (+1 to tell whether anything was left out). Nothing is written.
 */
import { AarError, blastRadius, buildAuthorityGraph, type BlastGrant, type BlastRadius } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { encodeCursor } from '../../routes/pagination.ts';
import { assertGraphAccess } from './graph-access.ts';
import type { GraphBounds } from './graph-bounds.ts';
import { effective, grantQuery, loadGraphRows, type GraphGrantRow } from './graph-rows.ts';

/** Summary lists (agents, card tokens, mandates) hold at most this many entries; `counts` are always exact. */
const SUMMARY_LIMIT = 1000;

export type BlastRadiusAnswer = Omit<BlastRadius, 'grants'> & {
  as_of: string;
  max_depth: number;
  complete: boolean;
  counts: { grants: number; agents: number; card_tokens: number; mandates: number };
  items: BlastGrant[];
  next_cursor: string | null;
};

export async function grantBlastRadius(
  ctx: AppContext,
  credential: Credential | null,
  grantId: string,
  bounds: GraphBounds,
): Promise<BlastRadiusAnswer> {
  const db = ctx.store.db;
  const found = await grantQuery(db).where('grants.grant_id', '=', grantId).executeTakeFirst();
  if (!found) throw new AarError('not_found', `grant \`${grantId}\` not found`);
  const [start] = effective([found]);
  assertGraphAccess(credential, start!.principal_entity_id);
  const now = ctx.clock.now().toISOString();
  const subtree = await loadSubtree(ctx, start!, bounds.maxDepth + 1);
  const graph = buildAuthorityGraph(await loadGraphRows(db, subtree, now.slice(0, 10), { whole: true }));
  const result = blastRadius(graph, start!.grant_id, now, bounds.maxDepth)!;
  const { grants, ...radius } = result.radius;
  const from = bounds.afterSeq;
  const items = grants.slice(from, from + bounds.limit);
  const more = from + bounds.limit < grants.length;
  return {
    ...radius,
    agents: radius.agents.slice(0, SUMMARY_LIMIT),
    card_tokens: radius.card_tokens.slice(0, SUMMARY_LIMIT),
    mandates: radius.mandates.slice(0, SUMMARY_LIMIT),
    as_of: now,
    max_depth: bounds.maxDepth,
    complete: result.complete,
    counts: {
      grants: grants.length,
      agents: radius.agents.length,
      card_tokens: radius.card_tokens.length,
      mandates: radius.mandates.length,
    },
    items,
    // the cursor of this answer is the position in the radius (it is computed whole, then paged)
    next_cursor: more ? encodeCursor(from + bounds.limit) : null,
  };
}

/** The grant and its descendants up to `levels` levels below it. */
async function loadSubtree(ctx: AppContext, start: GraphGrantRow, levels: number): Promise<GraphGrantRow[]> {
  const db = ctx.store.db;
  if (start.parent_grant_id === null) {
    return effective(
      await grantQuery(db)
        .where('grants.root_grant_id', '=', start.grant_id)
        .where('grants.depth', '<=', start.depth + levels)
        .execute(),
    );
  }
  const out: GraphGrantRow[] = [start];
  let frontier = [start.grant_id];
  for (let level = 1; level <= levels && frontier.length > 0; level++) {
    const next: GraphGrantRow[] = [];
    for (let i = 0; i < frontier.length; i += 500) {
      next.push(
        ...effective(
          await grantQuery(db)
            .where('grants.parent_grant_id', 'in', frontier.slice(i, i + 500))
            .execute(),
        ),
      );
    }
    out.push(...next);
    frontier = next.map((g) => g.grant_id);
  }
  return out;
}
