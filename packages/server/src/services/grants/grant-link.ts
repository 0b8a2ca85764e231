import { GRANT_LINK_SCHEMA, type LinkDelegation, type UnsignedGrantLink } from '@aar/core';
import type { WireScope } from './grant-scope.ts';

/**
 * The signed delegation link (`ns.authority_grant.v1`, core's delegation/chain-documents.ts): what the service
 * attests a grant says. Only ids and scope: no personal data, so links stay verifiable after an entity is erased.
 * A delegated link also names its delegator and, when the delegator has a registered key, carries the delegator's
 * signed statement and that key, under the service's signature. A grant made from a mandate or allowance names it
 * (`mandate`: id, format, digest), so the link alone shows which signed document the authority came from.
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
  /** a grant made from a mandate or allowance (issue 29): which one, and the digest of its document */
  mandate?: GrantMandateBinding;
}

/** The additive `mandate` member of a link (DESIGN-29 section 4): the grant is bound to this document. */
export interface GrantMandateBinding {
  /** `ns:mandate:<uuid>` or `ns:allowance:<uuid>` */
  mandate_id: string;
  format: 'ap2' | 'acp';
  /** base64url SHA-256 of the mandate's stored document (core mandateDigest) */
  digest: string;
}

export function grantLink(input: GrantLinkInput): UnsignedGrantLink & Record<string, unknown> {
  const { delegator_entity_id, delegation, mandate, ...rest } = input;
  return {
    schema_version: GRANT_LINK_SCHEMA,
    ...rest,
    ...(delegator_entity_id === undefined ? {} : { delegator_entity_id }),
    ...(delegation === undefined ? {} : { delegation }),
    ...(mandate === undefined ? {} : { mandate }),
  };
}
