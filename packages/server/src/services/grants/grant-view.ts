import type { Selectable } from 'kysely';
import type { GrantsTable } from '../../store/index.ts';
import { scopeToWire, type StoredScope, type WireScope } from './grant-scope.ts';

export interface GrantView {
  grant_id: string;
  parent_grant_id: string | null;
  principal_entity_id: string;
  actor_entity_id: string;
  capability_id: string;
  resource_id: string;
  scope: WireScope;
  state: GrantsTable['state'];
  depth: number;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
  /** the link signed by the service (CONTRACT section 4), verifiable offline with the JWKS */
  link: Record<string, unknown>;
}

export function grantView(row: Selectable<GrantsTable>): GrantView {
  return {
    grant_id: row.grant_id,
    parent_grant_id: row.parent_grant_id,
    principal_entity_id: row.principal_entity_id,
    actor_entity_id: row.actor_entity_id,
    capability_id: row.capability_id,
    resource_id: row.resource_id,
    scope: scopeToWire(JSON.parse(row.scope) as StoredScope),
    state: row.state,
    depth: row.depth,
    created_at: row.created_at,
    updated_at: row.updated_at,
    revoked_at: row.revoked_at,
    link: JSON.parse(row.document) as Record<string, unknown>,
  };
}
