/**
 * The smallest world in which an authorize is an allow, built over the service's own HTTP API: a person, an agent
 * with a registered Ed25519 key, a card token, a grocer, a root grant with limits no benchmark run can reach, and a
 * runtime token. Every purchase the pool signs is 1.00 EUR at the grocer: far under every limit, never an approval.
 * With `agents` > 1, that many cardholders (person, agent, card token and grant each) share the grocer and the
 * token: how a deployment with many cardholders looks, where requests do not all spend against one grant's row.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Ed25519PrivateJwk } from '@aar/sdk';

export const AGENT_ID = 'ns:entity:agent:bench-agent';
export const PRINCIPAL_ID = 'ns:entity:person:bench-principal';
const CARD_TOKEN = 'bench-card';
const MERCHANT = 'bench-grocer';

/** One cardholder's agent: its key, and the body of its purchase (identical for every request of this agent). */
export interface BenchAgent {
  keyId: string;
  privateJwk: Ed25519PrivateJwk;
  body: Record<string, unknown>;
}

export interface BenchWorld {
  base: string;
  runtimeToken: string;
  /** the first agent's */
  agentKeyId: string;
  agentPrivateJwk: Ed25519PrivateJwk;
  /** every agent (one unless built with more); the pool signs for them in turn */
  agents: BenchAgent[];
}

/** Whether an actor id is one of the world's agents (AGENT_ID, or `AGENT_ID-<i>` in a world of several). */
export function isBenchAgent(actor: unknown): boolean {
  return typeof actor === 'string' && (actor === AGENT_ID || actor.startsWith(`${AGENT_ID}-`));
}

/** The authorize body of one purchase; identical for every request (the signature's nonce makes each unique). */
export function purchaseBody(suffix = ''): Record<string, unknown> {
  return {
    actor_entity_id: `${AGENT_ID}${suffix}`,
    principal_entity_id: `${PRINCIPAL_ID}${suffix}`,
    subject: 'ns:capability:payment_action:card_purchase',
    resource: { merchant_id: MERCHANT, amount: 1, currency: 'EUR' },
    scope: { instrument: `ns:card_token:${CARD_TOKEN}${suffix}` },
  };
}

/** `mayDelegate`: the root grants may be delegated (the mandate benchmark hangs an AP2 mandate's grant below one). */
export async function buildWorld(
  base: string,
  adminToken: string,
  agentCount = 1,
  options: { mayDelegate?: boolean } = {},
): Promise<BenchWorld> {
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  await post('/v1/merchants', { id: MERCHANT, display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
  const agents: BenchAgent[] = [];
  for (let i = 0; i < agentCount; i++) {
    // one agent keeps the ids of earlier runs; several are told apart by a suffix
    const suffix = agentCount === 1 ? '' : `-${i}`;
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const pub = publicKey.export({ format: 'jwk' });
    const principal = `${PRINCIPAL_ID}${suffix}`;
    const card = `${CARD_TOKEN}${suffix}`;
    await post('/v1/entities', { type: 'person', id: `bench-principal${suffix}`, display_name: 'Bench principal' });
    await post('/v1/entities', {
      type: 'agent',
      id: `bench-agent${suffix}`,
      display_name: 'Bench agent',
      public_key_jwk: { kty: pub.kty, crv: pub.crv, x: pub.x },
    });
    await post('/v1/card-tokens', { id: card, principal_entity_id: principal, network_token: `ntk_bench_${i + 1}` });
    await post('/v1/grants', {
      principal_entity_id: principal,
      actor_entity_id: `${AGENT_ID}${suffix}`,
      capability_id: 'ns:capability:payment_action:card_purchase',
      resource_id: `ns:credential:card-token:${card}`,
      scope: {
        max_amount_per_purchase: { amount: 1000, currency: 'EUR' },
        max_daily_amount: { amount: 1_000_000_000, currency: 'EUR' },
        allowed_jurisdictions: ['DE'],
        valid_until: new Date(Date.now() + 24 * 3600 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        ...(options.mayDelegate ? { may_delegate: true } : {}),
      },
    });
    agents.push({
      keyId: `${AGENT_ID}${suffix}`,
      privateJwk: privateKey.export({ format: 'jwk' }) as Ed25519PrivateJwk,
      body: purchaseBody(suffix),
    });
  }
  const { token } = await post('/v1/tokens', { role: 'runtime' });
  if (typeof token !== 'string') throw new Error('POST /v1/tokens answered no token');
  return {
    base,
    runtimeToken: token,
    agentKeyId: agents[0]!.keyId,
    agentPrivateJwk: agents[0]!.privateJwk,
    agents,
  };
}
