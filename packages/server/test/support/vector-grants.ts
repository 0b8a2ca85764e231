/**
 * Writes a vector's grant chain into the store as the grants service would have: the scope parsed from its wire
 * form by the server's own parser (so the stored form is one the API produces: money in `{ minor, currency }`,
 * actions with their `purchase.` prefix, `valid_until` as toISOString), and a link document signed with the
 * service's current key. Direct inserts, because the API cannot write a delegated link with a given id, a link
 * wider than its parent, or a grant that is already expired; a link whose snapshot says `signature_valid: false`
 * gets a signature with one flipped character. A grant made from a mandate or allowance (snapshot `mandate`) gets
 * its `mandate_id` column and its link the `mandate` member ({ mandate_id, format, digest }), as
 * services/grants/delegate-grant.ts writes them; its mandates row is seed-decision-vector.ts's.
 */
import { moneyToJson, signDocument, type GrantMandate, type GrantScope, type GrantSnapshot } from '@aar/core';
import type { AppContext } from '../../src/app-context.ts';
import { grantLink } from '../../src/services/grants/grant-link.ts';
import { parseGrantScope, scopeToWire, type StoredScope } from '../../src/services/grants/grant-scope.ts';

const MONEY_FIELDS = ['max_amount_per_purchase', 'max_daily_amount', 'requires_approval_above'] as const;

/** The stored form of a decide scope, through the wire form the grants API accepts. */
export function storedScopeOf(scope: GrantScope): StoredScope {
  const wire: Record<string, unknown> = { ...scope };
  for (const field of MONEY_FIELDS) {
    const money = scope[field];
    if (money) wire[field] = moneyToJson(money);
  }
  // the budget in the wire form POST /v1/grants takes: major units, with its period
  if (scope.budget) wire.budget = { ...moneyToJson(scope.budget), period: scope.budget.period };
  if (scope.allowed_actions) wire.allowed_actions = scope.allowed_actions.map((a) => `purchase.${a}`);
  // epoch as "now": the parser refuses a valid_until in the past, and a vector may hold an expired grant
  return parseGrantScope(wire, new Date(0));
}

export interface VectorGrant {
  grant_id: string;
  parent_grant_id: string | null;
  principal_entity_id: string;
  actor_entity_id: string;
  capability_id: string;
  resource_id: string;
  state: 'active' | 'revoked';
  scope: GrantScope;
  depth: number;
  /** false: the stored link's signature does not verify */
  signature_valid: boolean;
  /** the mandate or allowance the grant was made from (aar-decide/1.4.0 binding) */
  mandate?: GrantMandate;
}

/** Inserts the grants in the order given (a parent before its children: the parent link is a foreign key). */
export async function insertVectorGrants(ctx: AppContext, grants: readonly VectorGrant[], nowIso: string) {
  const rootOf = new Map<string, string>();
  for (const grant of grants) {
    const scope = storedScopeOf(grant.scope);
    const rootId = grant.parent_grant_id === null ? grant.grant_id : (rootOf.get(grant.parent_grant_id) ?? '');
    rootOf.set(grant.grant_id, rootId);
    const binding = grant.mandate && {
      mandate_id: grant.mandate.mandate_id,
      format: grant.mandate.format,
      digest: grant.mandate.digest,
    };
    const link = await signDocument(
      {
        ...grantLink({
          grant_id: grant.grant_id,
          parent_grant_id: grant.parent_grant_id,
          principal_entity_id: grant.principal_entity_id,
          actor_entity_id: grant.actor_entity_id,
          capability_id: grant.capability_id,
          resource_id: grant.resource_id,
          scope: scopeToWire(scope),
          depth: grant.depth,
          issued_at: nowIso,
        }),
        ...(binding ? { mandate: binding } : {}),
      },
      ctx.keys.current(),
    );
    if (!grant.signature_valid) link.signature.signature = flipFirstChar(link.signature.signature);
    await ctx.store.db
      .insertInto('grants')
      .values({
        grant_id: grant.grant_id,
        parent_grant_id: grant.parent_grant_id,
        root_grant_id: rootId,
        depth: grant.depth,
        principal_entity_id: grant.principal_entity_id,
        actor_entity_id: grant.actor_entity_id,
        capability_id: grant.capability_id,
        resource_id: grant.resource_id,
        scope: JSON.stringify(scope),
        state: grant.state,
        document: JSON.stringify(link),
        delegator_signature: null,
        created_by: null,
        created_at: nowIso,
        updated_at: nowIso,
        revoked_at: grant.state === 'revoked' ? nowIso : null,
        mandate_id: grant.mandate?.mandate_id ?? null,
      })
      .execute();
  }
}

/** Converts a snapshot link; a state the store cannot hold (`suspended`) is refused rather than approximated. */
export function vectorGrantOf(grant: GrantSnapshot): VectorGrant {
  if (grant.state !== 'active' && grant.state !== 'revoked') {
    throw new Error(`grant ${grant.grant_id}: the store holds no grant in state ${grant.state}`);
  }
  return {
    grant_id: grant.grant_id,
    parent_grant_id: grant.parent_grant_id,
    principal_entity_id: grant.principal_entity_id,
    actor_entity_id: grant.actor_entity_id,
    capability_id: grant.capability_id,
    resource_id: grant.resource_id,
    state: grant.state,
    scope: grant.scope,
    depth: grant.depth,
    signature_valid: grant.signature_valid,
    ...(grant.mandate ? { mandate: grant.mandate } : {}),
  };
}

export function flipFirstChar(text: string): string {
  return (text.startsWith('A') ? 'B' : 'A') + text.slice(1);
}
