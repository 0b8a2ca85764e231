/**
 * The authority graph over plain rows: principals, intermediaries, agents, card tokens, grants, mandates and merchants,
 * indexed for the queries (hand-written: maps by id and a parent -> children map; no graph library).
 * INVARIANT: grants are trees (each grant names at most one parent, of the same principal and card token), so a
 * grant's path from its principal is its chain of ancestors. Attacker assumption: rows come from the store, which an
 * attacker holding the database may have edited: a parent loop or a missing ancestor never makes a path usable.
 */
import type { GraphCardToken, GraphEntity, GraphGrant, GraphMandate, GraphMerchant, GraphRows } from './types.ts';
import type { MinorMoney } from '../decide/types.ts';

/** Longest chain followed upward; the grants API keeps delegation far shallower (max_delegation_depth <= 16). */
export const MAX_GRAPH_CHAIN = 64;

export interface AuthorityGraph {
  readonly grants: ReadonlyMap<string, GraphGrant>;
  readonly children: ReadonlyMap<string, readonly GraphGrant[]>;
  readonly entities: ReadonlyMap<string, GraphEntity>;
  readonly cardTokens: ReadonlyMap<string, GraphCardToken>;
  /** by mandate id */
  readonly mandates: ReadonlyMap<string, GraphMandate>;
  readonly merchants: ReadonlyMap<string, GraphMerchant>;
  /** each grant's own spend counter today (own properties of `rows.spent_today` only) */
  readonly spentToday: ReadonlyMap<string, MinorMoney>;
  /** actors of a grant that has a child grant: they delegated authority further */
  readonly delegators: ReadonlySet<string>;
}

export function buildAuthorityGraph(rows: GraphRows): AuthorityGraph {
  const grants = new Map<string, GraphGrant>();
  for (const grant of rows.grants) grants.set(grant.grant_id, grant);
  const children = new Map<string, GraphGrant[]>();
  const delegators = new Set<string>();
  for (const grant of grants.values()) {
    if (grant.parent_grant_id === null) continue;
    const siblings = children.get(grant.parent_grant_id);
    if (siblings) siblings.push(grant);
    else children.set(grant.parent_grant_id, [grant]);
    const parent = grants.get(grant.parent_grant_id);
    if (parent) delegators.add(parent.actor_entity_id);
  }
  for (const id of rows.grants_with_children ?? []) {
    const grant = grants.get(id);
    if (grant) delegators.add(grant.actor_entity_id);
  }
  for (const list of children.values()) list.sort(byGrantId);
  return {
    grants,
    children,
    entities: byId(rows.entities, (e) => e.entity_id),
    cardTokens: byId(rows.card_tokens, (t) => t.card_token_id),
    mandates: byId(rows.mandates, (m) => m.mandate_id),
    merchants: byId(rows.merchants, (m) => m.merchant_id),
    spentToday: new Map(Object.entries(rows.spent_today)),
    delegators,
  };
}

/**
 * The grant and its ancestors, root first; undefined when an ancestor is missing from the rows, the chain loops or
 * is longer than MAX_GRAPH_CHAIN (the path then cannot be shown to hold).
 */
export function chainOf(graph: AuthorityGraph, grantId: string): GraphGrant[] | undefined {
  const chain: GraphGrant[] = [];
  const seen = new Set<string>();
  let id: string | null = grantId;
  while (id !== null) {
    const grant = graph.grants.get(id);
    if (!grant || seen.has(id) || chain.length >= MAX_GRAPH_CHAIN) return undefined;
    seen.add(id);
    chain.push(grant);
    id = grant.parent_grant_id;
  }
  return chain.reverse();
}

/** `agent` for an agent entity that delegated nothing further; everyone else who holds a grant is an intermediary. */
export function actorKind(graph: AuthorityGraph, entityId: string): 'agent' | 'intermediary' {
  const entity = graph.entities.get(entityId);
  const isAgent = entity ? entity.type === 'agent' : entityId.startsWith('ns:entity:agent:');
  return isAgent && !graph.delegators.has(entityId) ? 'agent' : 'intermediary';
}

export function byGrantId(a: GraphGrant, b: GraphGrant): number {
  return a.grant_id < b.grant_id ? -1 : a.grant_id > b.grant_id ? 1 : 0;
}

function byId<T>(items: readonly T[], id: (item: T) => string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) map.set(id(item), item);
  return map;
}
