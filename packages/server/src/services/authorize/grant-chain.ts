/**
 * Which grant covers the request, and its ancestors (root first). The leaf is chosen among the actor's grants from
 * this principal (over this instrument when one is named) that cover the action: usable ones (active, unexpired)
 * first, newest first; when none is usable the newest is still returned so decide can name why
 * (authority_revoked, authority_expired) instead of authority_not_found.
 */
import { actionsCoveredBy, type GrantLookup, type PurchaseAction } from '@aar/core';
import type { Kysely, Selectable } from 'kysely';
import type { Database, GrantsTable } from '../../store/index.ts';
import type { StoredScope } from '../grants/grant-scope.ts';

/** A chain deeper than this is refused as delegation_invalid; the grants API keeps depth far lower. */
export const MAX_CHAIN_LENGTH = 32;

export interface GrantChain {
  lookup: GrantLookup;
  /** root first, leaf last; empty unless lookup is `found` */
  rows: Selectable<GrantsTable>[];
}

export async function loadGrantChain(
  db: Kysely<Database>,
  request: { actor_entity_id: string; principal_entity_id: string; action: PurchaseAction; instrument_id?: string },
  nowIso: string,
): Promise<GrantChain> {
  let query = db
    .selectFrom('grants')
    .selectAll()
    .where('actor_entity_id', '=', request.actor_entity_id)
    .where('principal_entity_id', '=', request.principal_entity_id);
  if (request.instrument_id) {
    query = query.where(
      'resource_id',
      '=',
      request.instrument_id.replace('ns:card_token:', 'ns:credential:card-token:'),
    );
  }
  const candidates = await query.orderBy('seq', 'desc').limit(200).execute();
  if (candidates.length === 0) return { lookup: 'authority_not_found', rows: [] };
  const covering = candidates.filter((g) => actionsCoveredBy(g.capability_id).includes(request.action));
  if (covering.length === 0) return { lookup: 'capability_not_granted', rows: [] };
  const usable = covering.filter((g) => g.state === 'active' && !expired(g, nowIso) && allows(g, request.action));
  const leaf = usable[0] ?? covering.find((g) => allows(g, request.action)) ?? covering[0]!;

  const rows = [leaf];
  let parentId = leaf.parent_grant_id;
  while (parentId !== null && rows.length <= MAX_CHAIN_LENGTH) {
    const parent = await db.selectFrom('grants').selectAll().where('grant_id', '=', parentId).executeTakeFirst();
    if (!parent) break; // a dangling link: decide sees a chain that does not reach a root (delegation_invalid)
    rows.unshift(parent);
    parentId = parent.parent_grant_id;
  }
  return { lookup: 'found', rows };
}

function expired(row: Selectable<GrantsTable>, nowIso: string): boolean {
  const until = (JSON.parse(row.scope) as StoredScope).valid_until;
  return until !== undefined && until <= nowIso;
}

function allows(row: Selectable<GrantsTable>, action: PurchaseAction): boolean {
  const allowed = (JSON.parse(row.scope) as StoredScope).allowed_actions;
  return allowed === undefined || allowed.includes(`purchase.${action}` as never);
}
