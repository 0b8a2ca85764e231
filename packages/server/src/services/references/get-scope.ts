/**
 * `GET /v1/scopes/{id}`: what `ns:scope:<grant uuid>` in a decision map names — the authority the chain ending at
 * that grant conveys now (the intersection of every link's scope, CONTRACT section 5) beside each link's own scope,
 * as `ns.scope_snapshot.v1`. Amounts are on the wire in major units, as the grants API takes them.
 * `ns:scope:none` (no grant covered the request) resolves to an empty snapshot.
 */
import { AarError, computeEffectiveScope, parseMintedId, type GrantScope, type MinorMoney } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { toDecideScope } from '../authorize/to-decide-scope.ts';
import { grantNotFound } from '../grants/create-grant.ts';
import { scopeToWire, type StoredScope, type WireScope } from '../grants/grant-scope.ts';
import { loadAncestry } from '../grants/load-ancestry.ts';

export const SCOPE_SNAPSHOT_SCHEMA = 'ns.scope_snapshot.v1';
const NO_SCOPE = 'ns:scope:none';

export interface ScopeSnapshot {
  schema_version: typeof SCOPE_SNAPSHOT_SCHEMA;
  scope_id: string;
  grant_id: string | null;
  as_of: string;
  effective_scope: WireScope | null;
  links: Array<{ grant_id: string; state: string; scope: WireScope }>;
}

export async function getScope(ctx: AppContext, credential: Credential | null, rawId: string): Promise<ScopeSnapshot> {
  const as_of = ctx.clock.now().toISOString();
  if (rawId === NO_SCOPE) {
    return {
      schema_version: SCOPE_SNAPSHOT_SCHEMA,
      scope_id: NO_SCOPE,
      grant_id: null,
      as_of,
      effective_scope: null,
      links: [],
    };
  }
  if (typeof rawId !== 'string' || !rawId.startsWith('ns:scope:')) {
    throw new AarError('invalid_id', `\`${String(rawId).slice(0, 160)}\` is not a scope id (\`ns:scope:<uuid>\`)`, {
      errors: [{ path: '/params/id', message: 'expected `ns:scope:<uuid>`' }],
    });
  }
  const grantId = parseMintedId(
    'authority:grant',
    `ns:authority:grant:${rawId.slice('ns:scope:'.length)}`,
    '/params/id',
  );
  const rows = await loadAncestry(ctx.store.db, grantId);
  if (!rows) throw grantNotFound(grantId);
  if (credential?.role === 'principal') {
    const bound = credential.principal_entity_id;
    // the same rule as the chain: its principal, or an entity holding one of its links
    if (bound !== rows[0]!.principal_entity_id && !rows.some((r) => r.actor_entity_id === bound)) {
      throw new AarError('forbidden', `this credential may not read scope \`${rawId}\``);
    }
  }
  const own = rows.map((r) => JSON.parse(r.scope) as StoredScope);
  return {
    schema_version: SCOPE_SNAPSHOT_SCHEMA,
    scope_id: rawId,
    grant_id: grantId,
    as_of,
    effective_scope: scopeToWire(fromDecideScope(computeEffectiveScope(own.map(toDecideScope)))),
    links: rows.map((r, i) => ({ grant_id: r.grant_id, state: r.state, scope: scopeToWire(own[i]!) })),
  };
}

function fromDecideScope(scope: GrantScope): StoredScope {
  const { allowed_actions, ...rest } = scope;
  const out = { ...rest } as StoredScope & Record<string, MinorMoney | unknown>;
  if (allowed_actions) out.allowed_actions = allowed_actions.map((a) => `purchase.${a}` as const);
  return out;
}
