/**
 * A principal's authority graph as nodes and edges (the body of `ns.authority_graph.v1`): the principal, every grant of
 * the page and its ancestors, their actors (intermediaries and agents), card tokens, mandates and the merchants their
 * scopes name. Each grant node carries its path's effective limits (path-limits.ts), so a drawing shows on every edge
 * what authority really flows through it. Nodes and edges are sorted (kind order, then id) so a document signed twice
 * over the same rows is byte-identical apart from its id and timestamps.
 */
import { actorKind, chainOf, type AuthorityGraph } from './authority-graph.ts';
import { pathLimits } from './path-limits.ts';
import type { GraphEdge, GraphNode, GraphNodeKind } from './types.ts';

const KIND_ORDER: readonly GraphNodeKind[] = [
  'principal',
  'intermediary',
  'agent',
  'card_token',
  'grant',
  'mandate',
  'merchant',
];

export function principalGraph(
  graph: AuthorityGraph,
  principalId: string,
  grantIds: readonly string[],
  now: string,
): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const nodes = new Map<string, GraphNode>();
  const edges = new Map<string, GraphEdge>();
  const entity = graph.entities.get(principalId);
  nodes.set(principalId, node(principalId, 'principal', entity?.state ?? 'unknown', entity?.type ?? null));
  const include = new Set<string>();
  for (const id of grantIds) {
    for (const grant of chainOf(graph, id) ?? [graph.grants.get(id)].filter((g) => g !== undefined)) {
      if (grant.principal_entity_id === principalId) include.add(grant.grant_id);
    }
  }
  for (const id of include) {
    const grant = graph.grants.get(id)!;
    const effective = pathLimits(graph, chainOf(graph, id), now);
    const expired = effective.blocked_by === 'authority_expired' || effective.blocked_by === 'mandate_expired';
    const state = grant.state !== 'active' ? grant.state : expired ? 'expired' : 'active';
    nodes.set(id, { ...node(id, 'grant', state, null), depth: grant.depth, effective });
    if (grant.parent_grant_id === null) addEdge(edges, principalId, id, 'grants', id);
    else addEdge(edges, grant.parent_grant_id, id, 'delegates', id);

    const actor = graph.entities.get(grant.actor_entity_id);
    nodes.set(
      grant.actor_entity_id,
      node(
        grant.actor_entity_id,
        actorKind(graph, grant.actor_entity_id),
        actor?.state ?? 'unknown',
        actor?.type ?? null,
      ),
    );
    addEdge(edges, id, grant.actor_entity_id, 'held_by', id);

    const token = graph.cardTokens.get(grant.card_token_id);
    nodes.set(grant.card_token_id, node(grant.card_token_id, 'card_token', token?.state ?? 'unknown', null));
    addEdge(edges, id, grant.card_token_id, 'spends_on', id);

    if (grant.mandate_id !== null) {
      const mandate = graph.mandates.get(grant.mandate_id);
      const mandateState =
        grant.state !== 'active'
          ? 'revoked'
          : expired
            ? 'expired'
            : mandate?.single_use && mandate.used
              ? 'used'
              : 'active';
      nodes.set(grant.mandate_id, node(grant.mandate_id, 'mandate', mandate ? mandateState : 'unknown', null));
      addEdge(edges, id, grant.mandate_id, 'made_from', id);
    }
    for (const merchantId of grant.scope.allowed_merchants ?? []) {
      const merchantNode = `ns:merchant:${merchantId}`;
      nodes.set(
        merchantNode,
        node(merchantNode, 'merchant', graph.merchants.get(merchantId)?.state ?? 'unknown', null),
      );
      addEdge(edges, id, merchantNode, 'limited_to', id);
    }
  }
  return {
    nodes: [...nodes.values()].sort(
      (a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || compare(a.node_id, b.node_id),
    ),
    edges: [...edges.values()].sort(
      (a, b) => compare(a.grant_id, b.grant_id) || compare(a.kind, b.kind) || compare(a.to, b.to),
    ),
  };
}

function node(id: string, kind: GraphNodeKind, state: string, entityType: string | null): GraphNode {
  return { node_id: id, kind, state, entity_type: entityType, depth: null, effective: null };
}

function addEdge(edges: Map<string, GraphEdge>, from: string, to: string, kind: GraphEdge['kind'], grantId: string) {
  edges.set(`${kind} ${from} ${to}`, { from, to, kind, grant_id: grantId });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
