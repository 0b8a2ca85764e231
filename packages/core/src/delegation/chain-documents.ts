/**
 * The signed documents of delegation (CONTRACT sections 4 and 5). Plain JSON, stored and exported as is, so these
 * shapes are a stored format: change them additively.
 *
 * - A link (`ns.authority_grant.v1`) is one grant as the service signed it: ids, the grant's OWN scope (money in
 *   major units, actions with their `purchase.` prefix; an omitted field inherits the parent's value), its depth and
 *   issue time. A delegated link also names its delegator (the parent's actor) and, when the delegator has a
 *   registered Ed25519 key, carries the delegator's signed statement and that key, both under the service signature.
 * - A statement (`ns.delegation_statement.v1`) is what the delegator signs BEFORE the service mints any id: the
 *   grant request it makes (parent, grantee, scope...), a creation time and a nonce.
 * - A chain (`ns.delegation_chain.v1`) is the links from the root to one grant, root first, with the public keys a
 *   verifier needs and each link's state at `as_of`; the service signs it too, which attests those states.
 */
import type { BudgetPeriod } from '../decide/types.ts';
import type { DocumentSignature } from '../signing/sign-document.ts';
import type { Ed25519PublicJwk } from '../signing/ed25519-jwk.ts';

export const GRANT_LINK_SCHEMA = 'ns.authority_grant.v1';
export const DELEGATION_STATEMENT_SCHEMA = 'ns.delegation_statement.v1';
export const DELEGATION_CHAIN_SCHEMA = 'ns.delegation_chain.v1';

/**
 * A verifier refuses longer chains before checking any signature (a 10,000-link chain costs nothing). The service
 * never mints one this long: its depth limit is far lower.
 */
export const MAX_CHAIN_LINKS = 64;

export interface WireMoney {
  amount: number;
  currency: string;
}

/** A grant scope on the wire and in links: money in major units, actions as `purchase.<action>`. */
export interface WireGrantScope {
  max_amount_per_purchase?: WireMoney;
  max_daily_amount?: WireMoney;
  requires_approval_above?: WireMoney;
  allowed_merchant_categories?: string[];
  blocked_merchant_categories?: string[];
  allowed_jurisdictions?: string[];
  valid_until?: string;
  allowed_actions?: string[];
  may_delegate?: boolean;
  max_delegation_depth?: number;
  /**
   * aar-decide/1.4.0: a cumulative budget over a UTC period, in major units like the other money fields and in their
   * currency; a child's amount is at most its parent's, whatever the two periods
   */
  budget?: WireMoney & { period: BudgetPeriod };
  /** aar-decide/1.4.0: merchant ids as `resource.merchant_id` carries them; a child's list is a subset */
  allowed_merchants?: string[];
}

export interface UnsignedDelegationStatement {
  schema_version: typeof DELEGATION_STATEMENT_SCHEMA;
  /** the parent grant's actor, canonical form (`ns:entity:<type>:<id>`) */
  delegator_entity_id: string;
  /** ISO 8601 UTC; the service accepts it within its signature window (300 s by default) */
  created: string;
  /** 16-128 characters of `[A-Za-z0-9_-]`; accepted once per delegator */
  nonce: string;
  /** the `POST /v1/grants` body exactly as sent, without its `delegator_proof` member */
  request: Record<string, unknown>;
}

export type DelegationStatement = UnsignedDelegationStatement & { signature: DocumentSignature };

/** The delegator's consent, as the service keeps it inside the link it signs. */
export interface LinkDelegation {
  statement: DelegationStatement;
  /** the delegator's registered key at the time, `kid` = the delegator's entity id */
  delegator_key: Ed25519PublicJwk;
  /** RFC 7638 thumbprint of `delegator_key` (the entity's `key_thumbprint`) */
  delegator_key_thumbprint: string;
}

export interface UnsignedGrantLink {
  schema_version: typeof GRANT_LINK_SCHEMA;
  grant_id: string;
  /** null for a root grant */
  parent_grant_id: string | null;
  principal_entity_id: string;
  actor_entity_id: string;
  capability_id: string;
  /** `ns:credential:card-token:<id>` */
  resource_id: string;
  /** the grant's own scope; an omitted field inherits the parent's value */
  scope: WireGrantScope;
  /** number of ancestors */
  depth: number;
  issued_at: string;
  /** delegated links only: the parent's actor, who delegated this grant */
  delegator_entity_id?: string;
  /** delegated links only, when the delegator has a registered key */
  delegation?: LinkDelegation;
}

export type GrantLink = UnsignedGrantLink & { signature: DocumentSignature };

export interface ChainLinkState {
  grant_id: string;
  /** `active` or `revoked` at `as_of` */
  state: string;
  revoked_at: string | null;
}

export interface UnsignedDelegationChain {
  schema_version: typeof DELEGATION_CHAIN_SCHEMA;
  /** `ns:delegation:<uuid>`: the chain that ends at grant `ns:authority:grant:<uuid>` */
  delegation_id: string;
  root_grant_id: string;
  leaf_grant_id: string;
  /** root first */
  links: GrantLink[];
  /** one per link, same order */
  states: ChainLinkState[];
  keys: {
    /** the service keys (JWKS members) that signed the links and this document; informative, never trusted */
    service: Ed25519PublicJwk[];
    /** delegators' keys, `kid` = entity id; each must equal the key its link carries under the service signature */
    delegators: Ed25519PublicJwk[];
  };
  /** when the states were read */
  as_of: string;
}

export type DelegationChain = UnsignedDelegationChain & { signature: DocumentSignature };

/** `ns:delegation:<uuid>` for a grant `ns:authority:grant:<uuid>`; undefined for anything else. */
export function delegationIdOf(grantId: string): string | undefined {
  const prefix = 'ns:authority:grant:';
  return grantId.startsWith(prefix) ? `ns:delegation:${grantId.slice(prefix.length)}` : undefined;
}

/** The grant a delegation id names; undefined for anything that is not `ns:delegation:<id>`. */
export function leafGrantIdOf(delegationId: string): string | undefined {
  const prefix = 'ns:delegation:';
  return delegationId.startsWith(prefix) ? `ns:authority:grant:${delegationId.slice(prefix.length)}` : undefined;
}
