/**
 * The smallest world in which an authorize is an allow, built over the service's own HTTP API: a person, an agent
 * with a registered Ed25519 key, a card token, a grocer, a root grant with limits no benchmark run can reach, and a
 * runtime token. Every purchase the pool signs is 1.00 EUR at the grocer: far under every limit, never an approval.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Ed25519PrivateJwk } from '@aar/sdk';

export const AGENT_ID = 'ns:entity:agent:bench-agent';
export const PRINCIPAL_ID = 'ns:entity:person:bench-principal';
const CARD_TOKEN = 'bench-card';
const MERCHANT = 'bench-grocer';

export interface BenchWorld {
  base: string;
  runtimeToken: string;
  agentKeyId: string;
  agentPrivateJwk: Ed25519PrivateJwk;
}

/** The authorize body of one purchase; identical for every request (the signature's nonce makes each unique). */
export function purchaseBody(): Record<string, unknown> {
  return {
    actor_entity_id: AGENT_ID,
    principal_entity_id: PRINCIPAL_ID,
    subject: 'ns:capability:payment_action:card_purchase',
    resource: { merchant_id: MERCHANT, amount: 1, currency: 'EUR' },
    scope: { instrument: `ns:card_token:${CARD_TOKEN}` },
  };
}

export async function buildWorld(base: string, adminToken: string): Promise<BenchWorld> {
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
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = publicKey.export({ format: 'jwk' });
  await post('/v1/entities', { type: 'person', id: 'bench-principal', display_name: 'Bench principal' });
  await post('/v1/entities', {
    type: 'agent',
    id: 'bench-agent',
    display_name: 'Bench agent',
    public_key_jwk: { kty: pub.kty, crv: pub.crv, x: pub.x },
  });
  await post('/v1/card-tokens', { id: CARD_TOKEN, principal_entity_id: PRINCIPAL_ID, network_token: 'ntk_bench_1' });
  await post('/v1/merchants', { id: MERCHANT, display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
  await post('/v1/grants', {
    principal_entity_id: PRINCIPAL_ID,
    actor_entity_id: AGENT_ID,
    capability_id: 'ns:capability:payment_action:card_purchase',
    resource_id: `ns:credential:card-token:${CARD_TOKEN}`,
    scope: {
      max_amount_per_purchase: { amount: 1000, currency: 'EUR' },
      max_daily_amount: { amount: 1_000_000_000, currency: 'EUR' },
      allowed_jurisdictions: ['DE'],
      valid_until: new Date(Date.now() + 24 * 3600 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    },
  });
  const { token } = await post('/v1/tokens', { role: 'runtime' });
  if (typeof token !== 'string') throw new Error('POST /v1/tokens answered no token');
  return {
    base,
    runtimeToken: token,
    agentKeyId: AGENT_ID,
    agentPrivateJwk: privateKey.export({ format: 'jwk' }) as Ed25519PrivateJwk,
  };
}
