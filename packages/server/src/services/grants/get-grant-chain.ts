/**
 * `GET /v1/grants/{id}/chain` and `GET /v1/delegations/{id}` (CONTRACT section 5): the chain from the root to one
 * grant as `ns.delegation_chain.v1`, root first, with the public keys an offline verifier needs (the service keys
 * that signed, by kid; the delegators' keys as their links attest them) and each link's state now, all under the
 * service's signature. `aar verify-chain` checks it with nothing but the issuer's JWKS.
 */
import {
  AarError,
  DELEGATION_CHAIN_SCHEMA,
  delegationIdOf,
  leafGrantIdOf,
  parseMintedId,
  signDocument,
  type DelegationChain,
  type Ed25519PublicJwk,
  type GrantLink,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { grantNotFound } from './create-grant.ts';
import { loadAncestry } from './load-ancestry.ts';

export async function getGrantChain(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
): Promise<DelegationChain> {
  const id = parseMintedId('authority:grant', rawId, '/params/id');
  const rows = await loadAncestry(ctx.store.db, id);
  if (!rows) throw grantNotFound(id);
  const root = rows[0]!;
  if (credential?.role === 'principal') {
    const bound = credential.principal_entity_id;
    // the chain's principal, or an entity holding one of its links (an intermediary reading what it passed on)
    if (bound !== root.principal_entity_id && !rows.some((r) => r.actor_entity_id === bound)) {
      throw new AarError('forbidden', `this credential may not read the chain of grant \`${id}\``);
    }
  }
  const links = rows.map((r) => JSON.parse(r.document) as GrantLink);
  const signingKey = ctx.keys.current();
  const used = new Set([signingKey.keyId, ...links.map((l) => l.signature?.key_id)]);
  const service = (await ctx.keys.jwks()).keys.filter((k) => used.has(k.kid));
  const delegators = new Map<string, Ed25519PublicJwk>();
  for (const link of links) {
    const key = link.delegation?.delegator_key;
    if (key?.kid !== undefined && !delegators.has(key.kid)) delegators.set(key.kid, key);
  }
  return signDocument(
    {
      schema_version: DELEGATION_CHAIN_SCHEMA,
      delegation_id: delegationIdOf(id) ?? id,
      root_grant_id: root.grant_id,
      leaf_grant_id: id,
      links,
      states: rows.map((r) => ({ grant_id: r.grant_id, state: r.state, revoked_at: r.revoked_at })),
      keys: { service: service as Ed25519PublicJwk[], delegators: [...delegators.values()] },
      as_of: ctx.clock.now().toISOString(),
    },
    signingKey,
  ) as Promise<DelegationChain>;
}

/** `ns:delegation:<uuid>` names the chain that ends at grant `ns:authority:grant:<uuid>`. */
export async function getDelegation(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
): Promise<DelegationChain> {
  const grantId = leafGrantIdOf(rawId);
  if (grantId === undefined)
    throw new AarError('invalid_id', `\`${rawId}\` is not a delegation id \`ns:delegation:<uuid>\``);
  try {
    return await getGrantChain(ctx, credential, grantId);
  } catch (error) {
    if (error instanceof AarError && error.code === 'not_found') {
      throw new AarError('not_found', `delegation \`${rawId}\` does not exist`);
    }
    throw error;
  }
}
