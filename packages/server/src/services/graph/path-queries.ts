/**
 * The path queries of the graph (issue 30): who can spend on a card token, what an actor may do, the paths from a
 * principal to an actor. Each pages over grants in store order (`seq`) through an index (grants_resource for a card
 * token, grants_actor_principal for an actor), loads only those grants' ancestors and the rows they name
 * (graph-rows.ts), and lets core compute each path's effective limits. Nothing is written.
 */
import {
  AarError,
  buildAuthorityGraph,
  capabilitiesOf,
  fieldError,
  pathsBetween,
  spendersOf,
  tryParseCardTokenRef,
  tryParseEntityId,
  type AuthorityPath,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { assertGraphAccess, restrictedPrincipal } from './graph-access.ts';
import { pageOf, type GraphBounds } from './graph-bounds.ts';
import { effective, grantQuery, loadGraphRows, resourceOf, type GraphGrantRow } from './graph-rows.ts';

interface PathPage {
  as_of: string;
  day: string;
  max_depth: number;
  complete: boolean;
  items: AuthorityPath[];
  next_cursor: string | null;
}

export type SpendersAnswer = { card_token_id: string; principal_entity_id: string } & PathPage;
export type CapabilitiesAnswer = { entity_id: string } & PathPage;
export type PathsAnswer = { from: string; to: string } & PathPage;

export async function cardTokenSpenders(
  ctx: AppContext,
  credential: Credential | null,
  ref: string,
  bounds: GraphBounds,
): Promise<SpendersAnswer> {
  const local = tryParseCardTokenRef(ref) ?? tryParseCardTokenRef(`ns:card_token:${ref}`);
  if (local === undefined) throw fieldError('invalid_id', '/params/id', 'must be `ns:card_token:<id>` or `<id>`');
  const cardTokenId = `ns:card_token:${local}`;
  const db = ctx.store.db;
  const token = await db
    .selectFrom('card_tokens')
    .select(['principal_entity_id'])
    .where('card_token_id', '=', cardTokenId)
    .executeTakeFirst();
  if (!token) throw new AarError('not_found', `card token \`${cardTokenId}\` not found`);
  assertGraphAccess(credential, token.principal_entity_id);
  const resource = resourceOf(cardTokenId);
  const page = await pagePaths(ctx, bounds, [['grants.resource_id', resource]], (graph, ids, now) =>
    spendersOf(graph, cardTokenId, ids, now),
  );
  return { card_token_id: cardTokenId, principal_entity_id: token.principal_entity_id, ...page };
}

export async function agentCapabilities(
  ctx: AppContext,
  credential: Credential | null,
  ref: string,
  bounds: GraphBounds,
): Promise<CapabilitiesAnswer> {
  const entityId = entityIdOf(ref, '/params/id');
  const only = restrictedPrincipal(credential);
  await assertEntityExists(ctx, entityId);
  if (only !== undefined) {
    // a principal sees its own principal's paths only; an actor it gave nothing is not its to look at
    const any = await ctx.store.db
      .selectFrom('grants')
      .select('grant_id')
      .where('actor_entity_id', '=', entityId)
      .where('principal_entity_id', '=', only)
      .limit(1)
      .executeTakeFirst();
    if (!any) throw new AarError('forbidden', `this credential may not read the authority of \`${entityId}\``);
  }
  const page = await pagePaths(
    ctx,
    bounds,
    only === undefined
      ? [['grants.actor_entity_id', entityId]]
      : [
          ['grants.actor_entity_id', entityId],
          ['grants.principal_entity_id', only],
        ],
    (graph, ids, now) => capabilitiesOf(graph, entityId, ids, now),
  );
  return { entity_id: entityId, ...page };
}

export async function principalAgentPaths(
  ctx: AppContext,
  credential: Credential | null,
  query: { from?: string; to?: string },
  bounds: GraphBounds,
): Promise<PathsAnswer> {
  if (query.from === undefined || query.from === '') throw fieldError('invalid_request', '/query/from', 'is required');
  if (query.to === undefined || query.to === '') throw fieldError('invalid_request', '/query/to', 'is required');
  const from = entityIdOf(query.from, '/query/from');
  const to = entityIdOf(query.to, '/query/to');
  assertGraphAccess(credential, from);
  await assertEntityExists(ctx, from);
  await assertEntityExists(ctx, to);
  const page = await pagePaths(
    ctx,
    bounds,
    [
      ['grants.actor_entity_id', to],
      ['grants.principal_entity_id', from],
    ],
    (graph, ids, now) => pathsBetween(graph, from, to, ids, now),
  );
  return { from, to, ...page };
}

/** The owner columns a page is keyed by, each with its value: an index leads with them, then `seq`. */
type Owner = readonly (readonly [
  'grants.resource_id' | 'grants.actor_entity_id' | 'grants.principal_entity_id',
  string,
])[];

async function pagePaths(
  ctx: AppContext,
  bounds: GraphBounds,
  owner: Owner,
  paths: (graph: ReturnType<typeof buildAuthorityGraph>, ids: string[], now: string) => AuthorityPath[],
): Promise<PathPage> {
  const db = ctx.store.db;
  const now = ctx.clock.now().toISOString();
  const day = now.slice(0, 10);
  const { page, nextCursor, complete } = await ownerPage(db, owner, bounds);
  const graph = buildAuthorityGraph(await loadGraphRows(db, page, day));
  return {
    as_of: now,
    day,
    max_depth: bounds.maxDepth,
    complete,
    items: paths(
      graph,
      page.map((r) => r.grant_id),
      now,
    ),
    next_cursor: nextCursor,
  };
}

/**
 * One page of an owner's grants in store order: `limit + 1` rows of the owner's index range after the cursor (ordered
 * by the owner columns, then `seq`, so the planner walks that index and never the whole table), the grants deeper
 * than `max_depth` left out of the page (`complete` false then), the cursor past the last row read.
 */
export async function ownerPage(
  db: Parameters<typeof grantQuery>[0],
  owner: Owner,
  bounds: GraphBounds,
): Promise<{ page: GraphGrantRow[]; nextCursor: string | null; complete: boolean }> {
  let query = grantQuery(db);
  for (const [column, value] of owner) query = query.where(column, '=', value);
  for (const [column] of owner) query = query.orderBy(column);
  const rows = await query
    .where('grants.seq', '>', bounds.afterSeq)
    .orderBy('grants.seq')
    .limit(bounds.limit + 1)
    .execute();
  const { page, nextCursor } = pageOf(rows, bounds.limit);
  const shown = effective(page.filter((row) => row.depth < bounds.maxDepth));
  return { page: shown, nextCursor, complete: shown.length === page.length };
}

export function entityIdOf(ref: string, path: string): string {
  const parsed = tryParseEntityId(ref);
  if (!parsed) throw fieldError('invalid_id', path, 'must be an entity id `ns:entity:<type>:<id>`');
  return parsed.id;
}

export async function assertEntityExists(ctx: AppContext, entityId: string): Promise<void> {
  const row = await ctx.store.db
    .selectFrom('entities')
    .select('entity_id')
    .where('entity_id', '=', entityId)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `entity \`${entityId}\` not found`);
}
