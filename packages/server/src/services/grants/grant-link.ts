import type { WireScope } from './grant-scope.ts';

/**
 * The signed delegation link (`ns.authority_grant.v1`): what the service attests a grant says. Only ids and scope:
 * no personal data, so links stay verifiable after an entity is erased.
 */
export interface GrantLinkInput {
  grant_id: string;
  parent_grant_id: string | null;
  principal_entity_id: string;
  actor_entity_id: string;
  capability_id: string;
  resource_id: string;
  scope: WireScope;
  depth: number;
  issued_at: string;
}

export function grantLink(input: GrantLinkInput): Record<string, unknown> & { schema_version: string } {
  return { schema_version: 'ns.authority_grant.v1', ...input };
}
