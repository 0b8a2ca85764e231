/**
 * A delegation world over HTTP on a real socket: alice (a person) holds card token tok-1; agents concierge, planner,
 * shopper-1 and sibling each have a registered Ed25519 key; a root grant alice -> concierge may be delegated two
 * levels down. Helpers delegate (signing the delegator's statement with its key), authorize as any agent (signing
 * the request with its key), revoke, and count what a refusal must leave unchanged.
 */
import { generateKeyPairSync, randomBytes, sign as nodeSign, type KeyObject } from 'node:crypto';
import { buildDelegationStatement, signDocument, type DocumentSignature, type DocumentSigner } from '@aar/core';
import { createRequestSigner, type RequestSigner } from '@aar/sdk';
import type { AppContext } from '../../src/app-context.ts';
import type { Clock } from '../../src/clock.ts';
import { createApiCall, type ApiCall, type ApiResponse } from './api-call.ts';
import { inOneYear } from './fixtures.ts';

export const ALICE = 'ns:entity:person:alice';
export const CARD = 'ns:credential:card-token:tok-1';
export const PURCHASE = 'ns:capability:payment_action:card_purchase';
export const AGENTS = ['concierge', 'planner', 'shopper-1', 'sibling', 'helper'] as const;
export type AgentName = (typeof AGENTS)[number];

export const ROOT_SCOPE = {
  max_amount_per_purchase: { amount: 100, currency: 'EUR' },
  max_daily_amount: { amount: 300, currency: 'EUR' },
  requires_approval_above: { amount: 80, currency: 'EUR' },
  allowed_merchant_categories: ['5411', '5812'],
  blocked_merchant_categories: ['7995'],
  allowed_jurisdictions: ['DE', 'FR'],
  allowed_actions: ['purchase.search', 'purchase.compare', 'purchase.execute'],
  may_delegate: true,
  max_delegation_depth: 2,
};

interface AgentKey {
  id: string;
  privateKey: KeyObject;
  requests: RequestSigner;
  documents: DocumentSigner;
}

export type DelegationWorld = Awaited<ReturnType<typeof buildDelegationWorld>>;

export async function buildDelegationWorld(base: string, adminToken: string, clock?: Clock) {
  const call: ApiCall = createApiCall(base, adminToken);
  const must = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await call(method, path, body, token);
    if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const nowSeconds = () => Math.floor((clock?.now() ?? new Date()).getTime() / 1000);
  const keys = {} as Record<AgentName, AgentKey>;
  await must('POST', '/v1/entities', { type: 'person', id: 'alice', display_name: 'Alice' });
  await must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
  for (const name of AGENTS) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
    const id = `ns:entity:agent:${name}`;
    await must('POST', '/v1/entities', {
      type: 'agent',
      id: name,
      display_name: name,
      public_key_jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
    });
    keys[name] = {
      id,
      privateKey,
      requests: createRequestSigner({
        keyId: id,
        privateJwk: privateKey.export({ format: 'jwk' }) as never,
        now: nowSeconds,
      }),
      documents: { keyId: id, sign: async (m) => new Uint8Array(nodeSign(null, m, privateKey)) },
    };
  }
  await must('POST', '/v1/card-tokens', { id: 'tok-1', principal_entity_id: ALICE, network_token: 'ntk_alice_1' });
  await must('POST', '/v1/card-tokens', { id: 'tok-2', principal_entity_id: ALICE, network_token: 'ntk_alice_2' });
  await must('POST', '/v1/merchants', { id: 'grocer-1', display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
  await must('POST', '/v1/merchants', { id: 'diner-1', display_name: 'Diner', category: '5812', jurisdiction: 'FR' });
  const runtimeToken: string = (await must('POST', '/v1/tokens', { role: 'runtime' })).token;
  const aliceToken: string = (await must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: ALICE }))
    .token;
  const bobToken: string = (
    await must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:person:bob' })
  ).token;
  const root = await must('POST', '/v1/grants', {
    principal_entity_id: ALICE,
    actor_entity_id: 'ns:entity:agent:concierge',
    capability_id: PURCHASE,
    resource_id: CARD,
    scope: { ...ROOT_SCOPE, valid_until: inOneYear() },
  });

  /** The delegator's `delegator_proof` over `request` (the body without it). */
  const proofFor = async (
    delegator: AgentName,
    request: Record<string, unknown>,
    options: { created?: string; nonce?: string; signer?: DocumentSigner } = {},
  ): Promise<{ created: string; nonce: string; signature: DocumentSignature }> => {
    const created = options.created ?? new Date(nowSeconds() * 1000).toISOString();
    // random letters: a long run of digits would be refused as a card number (CONTRACT section 7)
    const nonce = options.nonce ?? `n-${randomBytes(18).toString('base64url').replace(/[0-9]/g, 'x')}`;
    const signed = await signDocument(
      buildDelegationStatement({ delegator_entity_id: keys[delegator].id, created, nonce, request }),
      options.signer ?? keys[delegator].documents,
    );
    return { created, nonce, signature: signed.signature };
  };

  /** POST /v1/grants for a sub-delegation, signed by the delegator `by`; `token` defaults to admin. */
  const delegate = async (
    parentGrantId: string,
    by: AgentName,
    to: string,
    scope: Record<string, unknown>,
    options: { token?: string; extra?: Record<string, unknown>; sign?: boolean } = {},
  ): Promise<ApiResponse> => {
    const request = { parent_grant_id: parentGrantId, actor_entity_id: to, scope, ...options.extra };
    const body = options.sign === false ? request : { ...request, delegator_proof: await proofFor(by, request) };
    return call('POST', '/v1/grants', body, options.token);
  };

  const purchase = (agent: AgentName, amount: number, merchant = 'grocer-1', extra: Record<string, unknown> = {}) => ({
    actor_entity_id: keys[agent].id,
    principal_entity_id: ALICE,
    subject: PURCHASE,
    resource: { merchant_id: merchant, amount, currency: 'EUR' },
    scope: { instrument: 'ns:card_token:tok-1' },
    ...extra,
  });

  /** A signed POST /v1/runtime/authorize as `agent`, to this world's server or to `at` (another instance). */
  const authorize = async (agent: AgentName, body: unknown, at: string = base): Promise<ApiResponse> => {
    const text = JSON.stringify(body);
    const url = `${at}/v1/runtime/authorize`;
    const sig = await keys[agent].requests.sign({ method: 'POST', url, body: text });
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${runtimeToken}`, 'content-type': 'application/json', ...sig },
      body: text,
    });
    return { status: res.status, body: await res.json() };
  };

  return { call, must, keys, root, runtimeToken, aliceToken, bobToken, proofFor, delegate, purchase, authorize };
}

/** What a refused request must leave as it was. */
export async function countState(ctx: AppContext) {
  const db = ctx.store.db;
  const count = async (table: 'grants' | 'events' | 'audit_entries' | 'grant_revocations' | 'delegation_nonces') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    grants: await count('grants'),
    events: await count('events'),
    audit_entries: await count('audit_entries'),
    revocations: await count('grant_revocations'),
    nonces: await count('delegation_nonces'),
  };
}
