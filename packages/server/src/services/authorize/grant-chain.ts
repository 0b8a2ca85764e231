/**
 * Which grants cover the request, each with its ancestors (root first). Leaves are the actor's grants from this
 * principal (over this instrument when one is named) that cover the action. A grant made from a mandate or allowance
 * (`grants.mandate_id`) is a leaf only of a request that names that mandate, and such a request has no other leaf
 * (DESIGN-29 decision 4): a mandate's narrower scope never widens, nor is widened by, the agent's other grants.
 * Every usable one (active, unexpired, action allowed) is a candidate, newest first: the first is the snapshot's
 * `grants`, the rest its `alternatives`, and decide keeps the most permissive outcome among them (aar-decide/1.2.0).
 * When none is usable, the newest covering grant alone is returned so decide can name why (authority_revoked,
 * authority_expired) instead of authority_not_found; an unusable chain beside a usable one could only deny, so it is
 * not loaded.
 * Rows come through the instance's GrantCache, which is used only at the grant version read first (grant-cache.ts):
 * a revocation that committed before this read is always seen.
 */
import { actionsCoveredBy, MAX_ALTERNATIVES, type GrantLookup, type PurchaseAction } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { effectiveGrantRow, selectGrants, type GrantRow } from '../grants/grant-rows.ts';
import type { StoredScope } from '../grants/grant-scope.ts';
import { REVOKED_EVENT } from '../grants/write-revocation-cascade.ts';
import { integrityFailure } from './chained-state.ts';
import { candidatesKey, type GrantCache } from './grant-cache.ts';

/** A chain deeper than this is refused as delegation_invalid; the grants API keeps depth far lower. */
export const MAX_CHAIN_LENGTH = 32;

/** decide reads at most this many alternatives (core MAX_ALTERNATIVES); older usable grants past it are not loaded */
export const MAX_ALTERNATIVE_CHAINS = MAX_ALTERNATIVES;

export interface GrantChain {
  lookup: GrantLookup;
  /** root first, leaf last, effective states; empty unless lookup is `found` */
  rows: GrantRow[];
  /** further usable covering chains, each root first, newest leaf first */
  alternatives: GrantRow[][];
}

export async function loadGrantChain(
  db: Kysely<Database>,
  cache: GrantCache,
  request: { actor_entity_id: string; principal_entity_id: string; action: PurchaseAction; instrument_id?: string },
  nowIso: string,
  /** the grant version the caller read first (authorize reads it once for every cached fact); read here if absent */
  knownVersion?: number,
  /**
   * the request names a mandate (named-mandate.ts): only that mandate's grant is a candidate (`null`: the mandate
   * does not exist or is not this principal's and agent's, so none is). Absent: no grant made from a mandate is.
   */
  mandateGrantId?: string | null,
): Promise<GrantChain> {
  const version = knownVersion ?? (await cache.currentVersion());
  const resource = request.instrument_id?.replace('ns:card_token:', 'ns:credential:card-token:');
  const key = candidatesKey(request.actor_entity_id, request.principal_entity_id, resource);
  let candidates = cache.candidates(key, version);
  if (!candidates) {
    let query = withChainedRevocation(selectGrants(db))
      .where('grants.actor_entity_id', '=', request.actor_entity_id)
      .where('grants.principal_entity_id', '=', request.principal_entity_id);
    if (resource) query = query.where('grants.resource_id', '=', resource);
    candidates = (await query.orderBy('grants.seq', 'desc').limit(200).execute()).map(chainedGrantRow);
    cache.storeCandidates(key, version, candidates);
  }
  candidates = candidates.filter((g) =>
    mandateGrantId === undefined ? mandateIdOf(g) === null : g.grant_id === mandateGrantId,
  );
  if (candidates.length === 0) return { lookup: 'authority_not_found', rows: [], alternatives: [] };
  const covering = candidates.filter((g) => actionsCoveredBy(g.capability_id).includes(request.action));
  if (covering.length === 0) return { lookup: 'capability_not_granted', rows: [], alternatives: [] };
  const usable = covering.filter((g) => g.state === 'active' && !expired(g, nowIso) && allows(g, request.action));
  const leaves =
    usable.length > 0
      ? usable.slice(0, 1 + MAX_ALTERNATIVE_CHAINS)
      : [covering.find((g) => allows(g, request.action)) ?? covering[0]!];
  const chains: GrantRow[][] = [];
  for (const leaf of leaves) chains.push(await ancestry(db, cache, version, leaf));
  return { lookup: 'found', rows: chains[0]!, alternatives: chains.slice(1) };
}

/** The leaf and its ancestors, root first; rows through the cache at `version`. */
async function ancestry(db: Kysely<Database>, cache: GrantCache, version: number, leaf: GrantRow): Promise<GrantRow[]> {
  const rows = [leaf];
  let parentId = leaf.parent_grant_id;
  while (parentId !== null && rows.length <= MAX_CHAIN_LENGTH) {
    let parent = cache.row(parentId, version);
    if (!parent) {
      const found = await withChainedRevocation(selectGrants(db))
        .where('grants.grant_id', '=', parentId)
        .executeTakeFirst();
      if (!found) break; // a dangling link: decide sees a chain that does not reach a root (delegation_invalid)
      parent = chainedGrantRow(found);
      cache.storeRow(version, parent);
    }
    rows.unshift(parent);
    parentId = parent.parent_grant_id;
  }
  return rows;
}

/**
 * A grant's revocation is honoured as the chain records it: a revocation operation's entry (`ns.authority.revoked`,
 * subject the grant it was asked for: write-revocation-cascade.ts) revokes that grant and everything below it. Each
 * row read for authorize says, in the same statement (no extra round trip, only when the cache misses), whether the
 * chain holds such an entry for it; a row that reads active beside one had its revocation deleted or its state
 * edited (the attacker of chained-state.ts), and is refused. Descendants revoked by an ancestor's cascade are
 * judged through that ancestor, which is in their chain.
 */
function withChainedRevocation<Q extends ReturnType<typeof selectGrants>>(query: Q) {
  return query.select((eb) =>
    eb
      .exists(
        eb
          .selectFrom('audit_entries as chained')
          .select('chained.idx')
          .whereRef('chained.subject_ref', '=', 'grants.grant_id')
          .where('chained.kind', '=', REVOKED_EVENT),
      )
      .as('revoked_in_chain'),
  );
}

function chainedGrantRow(row: GrantRow & { cascade_revoked_at: string | null; revoked_in_chain: unknown }): GrantRow {
  const { revoked_in_chain: revokedInChain, ...rest } = row;
  const grant = effectiveGrantRow(rest);
  // SQLite answers 0/1, PostgreSQL a boolean
  if (grant.state === 'active' && (revokedInChain === true || Number(revokedInChain) === 1)) {
    throw integrityFailure('grants', grant.grant_id, 'state');
  }
  return grant;
}

/** The mandate or allowance a grant was made from (migration 0023), null for every other grant. */
export function mandateIdOf(row: GrantRow): string | null {
  return row.mandate_id ?? null;
}

function expired(row: GrantRow, nowIso: string): boolean {
  const until = (JSON.parse(row.scope) as StoredScope).valid_until;
  return until !== undefined && until <= nowIso;
}

function allows(row: GrantRow, action: PurchaseAction): boolean {
  const allowed = (JSON.parse(row.scope) as StoredScope).allowed_actions;
  return allowed === undefined || allowed.includes(`purchase.${action}` as never);
}
