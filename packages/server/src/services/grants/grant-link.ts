import { GRANT_LINK_SCHEMA, type LinkDelegation, type UnsignedGrantLink } from '@aar/core';
import type { WireScope } from './grant-scope.ts';

/**
 * The signed delegation link (`ns.authority_grant.v1`, core's delegation/chain-documents.ts): what the service
 * attests a grant says. Only ids and scope: no personal data, so links stay verifiable after an entity is erased.
 * A delegated link also names its delegator and, when the delegator has a registered key, carries the delegator's
 * signed statement and that key, under the service's signature.
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
  delegator_entity_id?: string;
  delegation?: LinkDelegation;
}

export function grantLink(input: GrantLinkInput): UnsignedGrantLink & Record<string, unknown> {
  const { delegator_entity_id, delegation, ...rest } = input;
  return {
    schema_version: GRANT_LINK_SCHEMA,
    ...rest,
    ...(delegator_entity_id === undefined ? {} : { delegator_entity_id }),
    ...(delegation === undefined ? {} : { delegation }),
  };
}
