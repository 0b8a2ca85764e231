/**
 * Builds signed delegation chains the way the service does (links signed by the service, statements signed by the
 * delegators, the chain document signed over its states), from fixed Ed25519 seeds so the vectors are reproducible.
 * Used by the vector writer (write-vectors.ts) and by the tests that mutate chains byte by byte.
 */
import { createPrivateKey, createPublicKey, sign as nodeSign } from 'node:crypto';
import {
  buildDelegationStatement,
  DELEGATION_CHAIN_SCHEMA,
  delegationIdOf,
  GRANT_LINK_SCHEMA,
  jwkThumbprint,
  signDocument,
  type DelegationChain,
  type DocumentSigner,
  type Ed25519PublicJwk,
  type GrantLink,
  type Jwks,
  type UnsignedGrantLink,
  type WireGrantScope,
} from '../../src/index.ts';

export interface TestKey {
  signer: DocumentSigner;
  jwk: Ed25519PublicJwk;
}

/** An Ed25519 key from a 32-byte seed given as 64 hex digits. */
export function keyFromSeed(kid: string, seedHex: string): TestKey {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')]);
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const x = (createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string }).x;
  return {
    signer: { keyId: kid, sign: async (message) => new Uint8Array(nodeSign(null, message, privateKey)) },
    jwk: { kty: 'OKP', crv: 'Ed25519', x, kid },
  };
}

export const SERVICE_KEY = keyFromSeed('ns:key:vectors-2026', '11'.repeat(32));
export const OTHER_SERVICE_KEY = keyFromSeed('ns:key:someone-else', '22'.repeat(32));
export const CONCIERGE_KEY = keyFromSeed('ns:entity:agent:concierge', '33'.repeat(32));
export const PLANNER_KEY = keyFromSeed('ns:entity:agent:planner', '44'.repeat(32));
export const MALLORY_KEY = keyFromSeed('ns:entity:agent:planner', '55'.repeat(32));

export const JWKS: Jwks = {
  keys: [{ ...SERVICE_KEY.jwk, alg: 'EdDSA', use: 'sig', valid_from: '2026-01-01T00:00:00.000Z' }],
};

export const PRINCIPAL = 'ns:entity:person:alice';
export const CARD = 'ns:credential:card-token:tok-1';
export const PURCHASE = 'ns:capability:payment_action:card_purchase';
export const NOW = '2026-04-15T10:00:00Z';

export const IDS = {
  root: 'ns:authority:grant:01963a4e-8c00-7b3a-9f10-2a4b6c8d0e01',
  middle: 'ns:authority:grant:01963a4e-9d11-7c4b-8a21-3b5c7d9e1f02',
  leaf: 'ns:authority:grant:01963a4e-ae22-7d5c-9b32-4c6d8e0f2a03',
  sibling: 'ns:authority:grant:01963a4e-bf33-7e6d-8c43-5d7e9f1a3b04',
};

export interface LinkSpec {
  grant_id: string;
  parent?: GrantLink;
  actor: string;
  scope: WireGrantScope;
  issued_at: string;
  capability?: string;
  /** the delegator signs a statement for this link (children only) */
  delegatorKey?: TestKey;
  /** sign the statement over this request instead of the link's own (a signature over another child) */
  statementRequest?: Record<string, unknown>;
}

export async function makeLink(spec: LinkSpec, serviceKey: TestKey = SERVICE_KEY): Promise<GrantLink> {
  const parent = spec.parent;
  const link: UnsignedGrantLink = {
    schema_version: GRANT_LINK_SCHEMA,
    grant_id: spec.grant_id,
    parent_grant_id: parent?.grant_id ?? null,
    principal_entity_id: PRINCIPAL,
    actor_entity_id: spec.actor,
    capability_id: spec.capability ?? parent?.capability_id ?? PURCHASE,
    resource_id: CARD,
    scope: spec.scope,
    depth: parent ? parent.depth + 1 : 0,
    issued_at: spec.issued_at,
  };
  if (parent) {
    link.delegator_entity_id = parent.actor_entity_id;
    if (spec.delegatorKey) {
      const request = spec.statementRequest ?? {
        parent_grant_id: parent.grant_id,
        actor_entity_id: spec.actor,
        scope: spec.scope,
      };
      const statement = await signDocument(
        buildDelegationStatement({
          delegator_entity_id: parent.actor_entity_id,
          created: spec.issued_at,
          nonce: `nonce-${spec.grant_id.slice(-12)}`,
          request,
        }),
        spec.delegatorKey.signer,
      );
      link.delegation = {
        statement,
        delegator_key: spec.delegatorKey.jwk,
        delegator_key_thumbprint: await jwkThumbprint(spec.delegatorKey.jwk),
      };
    }
  }
  return signDocument(link, serviceKey.signer);
}

export interface ChainOptions {
  states?: string[];
  asOf?: string;
  /** leave the document unsigned */
  unsigned?: boolean;
  delegatorKeys?: Ed25519PublicJwk[];
}

export async function makeChain(links: GrantLink[], options: ChainOptions = {}): Promise<DelegationChain> {
  const leaf = links[links.length - 1]!;
  const doc = {
    schema_version: DELEGATION_CHAIN_SCHEMA,
    delegation_id: delegationIdOf(leaf.grant_id) ?? '',
    root_grant_id: links[0]!.grant_id,
    leaf_grant_id: leaf.grant_id,
    links,
    states: links.map((l, i) => ({
      grant_id: l.grant_id,
      state: options.states?.[i] ?? 'active',
      revoked_at: options.states?.[i] === 'revoked' ? (options.asOf ?? NOW) : null,
    })),
    keys: {
      service: [...JWKS.keys],
      delegators: options.delegatorKeys ?? [CONCIERGE_KEY.jwk, PLANNER_KEY.jwk],
    },
    as_of: options.asOf ?? NOW,
  };
  if (options.unsigned) return doc as unknown as DelegationChain;
  return (await signDocument(doc, SERVICE_KEY.signer)) as DelegationChain;
}

export const ROOT_SCOPE: WireGrantScope = {
  max_amount_per_purchase: { amount: 100, currency: 'EUR' },
  max_daily_amount: { amount: 300, currency: 'EUR' },
  requires_approval_above: { amount: 80, currency: 'EUR' },
  allowed_merchant_categories: ['5411', '5812', 'groceries'],
  blocked_merchant_categories: ['7995'],
  allowed_jurisdictions: ['DE', 'FR'],
  valid_until: '2026-12-31T23:59:59.000Z',
  allowed_actions: ['purchase.search', 'purchase.compare', 'purchase.execute'],
  may_delegate: true,
  max_delegation_depth: 2,
};

export const MIDDLE_SCOPE: WireGrantScope = {
  max_amount_per_purchase: { amount: 50, currency: 'EUR' },
  max_daily_amount: { amount: 100, currency: 'EUR' },
  allowed_merchant_categories: ['5411', 'groceries'],
  valid_until: '2026-09-30T00:00:00.000Z',
};

export const LEAF_SCOPE: WireGrantScope = {
  max_amount_per_purchase: { amount: 25, currency: 'EUR' },
  requires_approval_above: { amount: 20, currency: 'EUR' },
  allowed_jurisdictions: ['DE'],
  blocked_merchant_categories: ['7995', '5993'],
  may_delegate: false,
};

/** holder (alice) -> concierge -> planner -> shopper-1, each child signed by its delegator. */
export async function validLinks(): Promise<[GrantLink, GrantLink, GrantLink]> {
  const root = await makeLink({
    grant_id: IDS.root,
    actor: 'ns:entity:agent:concierge',
    scope: ROOT_SCOPE,
    issued_at: '2026-04-01T09:00:00.000Z',
  });
  const middle = await makeLink({
    grant_id: IDS.middle,
    parent: root,
    actor: 'ns:entity:agent:planner',
    scope: MIDDLE_SCOPE,
    issued_at: '2026-04-01T09:05:00.000Z',
    delegatorKey: CONCIERGE_KEY,
  });
  const leaf = await makeLink({
    grant_id: IDS.leaf,
    parent: middle,
    actor: 'ns:entity:agent:shopper-1',
    scope: LEAF_SCOPE,
    issued_at: '2026-04-01T09:10:00.000Z',
    delegatorKey: PLANNER_KEY,
  });
  return [root, middle, leaf];
}
