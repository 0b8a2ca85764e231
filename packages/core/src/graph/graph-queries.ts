/**
 * The graph queries (issue 30), each over an AuthorityGraph and the page of leaf grants the caller chose (the server
 * pages by store order; the functions keep that order). Hand-written walks over the maps of authority-graph.ts.
 * INVARIANT: a path's limits are those of its whole chain (path-limits.ts), so every answer agrees with what authorize
 * would enforce through that path today; a path that cannot be used says why instead of being left out.
 */
import { actorKind, chainOf, type AuthorityGraph } from './authority-graph.ts';
import { pathLimits, pathLinks } from './path-limits.ts';
import type { AuthorityPath } from './types.ts';

/** One path per leaf grant found in the graph, in the order given. */
export function authorityPaths(graph: AuthorityGraph, leafIds: readonly string[], now: string): AuthorityPath[] {
  const paths: AuthorityPath[] = [];
  for (const id of leafIds) {
    const leaf = graph.grants.get(id);
    if (!leaf) continue;
    const chain = chainOf(graph, id);
    paths.push({
      principal_entity_id: leaf.principal_entity_id,
      actor_entity_id: leaf.actor_entity_id,
      actor_kind: actorKind(graph, leaf.actor_entity_id),
      card_token_id: leaf.card_token_id,
      leaf_grant_id: leaf.grant_id,
      capability_id: leaf.capability_id,
      links: pathLinks(graph, chain ?? [leaf]),
      effective: pathLimits(graph, chain, now),
    });
  }
  return paths;
}

/**
 * Who can spend on a card token, and how much today: every path over the token whose capability, narrowed by every
 * link's allowed_actions, still covers `execute` (usable or not: `effective.usable` and `blocked_by` say).
 */
export function spendersOf(
  graph: AuthorityGraph,
  cardTokenId: string,
  leafIds: readonly string[],
  now: string,
): AuthorityPath[] {
  return authorityPaths(graph, leafIds, now).filter(
    (p) => p.card_token_id === cardTokenId && p.effective.actions.includes('execute'),
  );
}

/** What an actor may do: every path that ends at it, with its effective capabilities and limits. */
export function capabilitiesOf(
  graph: AuthorityGraph,
  entityId: string,
  leafIds: readonly string[],
  now: string,
): AuthorityPath[] {
  return authorityPaths(graph, leafIds, now).filter((p) => p.actor_entity_id === entityId);
}

/** The paths from a principal to an actor (an agent or an intermediary). */
export function pathsBetween(
  graph: AuthorityGraph,
  principalId: string,
  entityId: string,
  leafIds: readonly string[],
  now: string,
): AuthorityPath[] {
  return authorityPaths(graph, leafIds, now).filter(
    (p) => p.principal_entity_id === principalId && p.actor_entity_id === entityId,
  );
}
