/**
 * The blast radius of revoking a grant, without revoking it: exactly the grants `POST /v1/grants/{id}/revoke` would
 * revoke (write-revocation-cascade.ts: the grant and every descendant, walking through revoked ones, whose own state
 * is still active), and the agent, card-token and mandate edges they carry. Hand-written breadth-first walk over
 * the children map, at most `maxLevels` levels below the grant (`complete` false when deeper grants were left).
 * Precondition: the graph holds the grant's subtree (and its ancestors, for `usable`).
 */
import { actorKind, byGrantId, chainOf, type AuthorityGraph } from './authority-graph.ts';
import { pathLimits } from './path-limits.ts';
import type { BlastGrant, BlastRadius, GraphGrant } from './types.ts';

export function blastRadius(
  graph: AuthorityGraph,
  grantId: string,
  now: string,
  maxLevels: number,
): { radius: BlastRadius; complete: boolean } | undefined {
  const start = graph.grants.get(grantId);
  if (!start) return undefined;
  const cut: GraphGrant[] = [];
  let complete = true;
  let level: GraphGrant[] = [start];
  const seen = new Set<string>([start.grant_id]);
  // a revoked grant answers `already_revoked` and revokes nothing (revoke-grant.ts): its subtree went with it
  if (start.state !== 'active') level = [];
  for (let depth = 0; level.length > 0; depth++) {
    for (const grant of level) if (grant.state === 'active') cut.push(grant);
    const next: GraphGrant[] = [];
    for (const grant of level) {
      for (const child of graph.children.get(grant.grant_id) ?? []) {
        if (seen.has(child.grant_id)) continue; // a loop in edited rows: walked once
        seen.add(child.grant_id);
        next.push(child);
      }
    }
    if (next.length > 0 && depth + 1 > maxLevels) {
      complete = false;
      break;
    }
    next.sort(byGrantId);
    level = next;
  }
  const grants: BlastGrant[] = cut.map((g) => ({
    grant_id: g.grant_id,
    parent_grant_id: g.parent_grant_id,
    depth: g.depth,
    actor_entity_id: g.actor_entity_id,
    card_token_id: g.card_token_id,
    mandate_id: g.mandate_id,
    usable: pathLimits(graph, chainOf(graph, g.grant_id), now).usable,
  }));
  const agents = new Map<string, number>();
  const tokens = new Map<string, number>();
  for (const g of cut) {
    agents.set(g.actor_entity_id, (agents.get(g.actor_entity_id) ?? 0) + 1);
    tokens.set(g.card_token_id, (tokens.get(g.card_token_id) ?? 0) + 1);
  }
  return {
    complete,
    radius: {
      grant_id: start.grant_id,
      principal_entity_id: start.principal_entity_id,
      already_revoked: start.state !== 'active',
      grants,
      agents: [...agents]
        .sort(byKey)
        .map(([entityId, n]) => ({ entity_id: entityId, kind: actorKind(graph, entityId), grants_cut: n })),
      card_tokens: [...tokens].sort(byKey).map(([id, n]) => ({ card_token_id: id, grants_cut: n })),
      mandates: cut
        .filter((g) => g.mandate_id !== null)
        .map((g) => ({ mandate_id: g.mandate_id!, grant_id: g.grant_id })),
    },
  };
}

function byKey(a: [string, number], b: [string, number]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}
