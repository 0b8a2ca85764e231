/**
 * A small world for authorize tests, built over HTTP on a real socket: a principal (alice) with a card token, an
 * agent with a registered Ed25519 key, merchants, a root grant, and runtime/principal credentials. `authorize()`
 * sends a request signed by the agent with the SDK's signer, exactly as an agent platform would.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createRequestSigner } from '@aar/sdk';
import { inOneYear } from './fixtures.ts';

export interface WorldOptions {
  scope?: Record<string, unknown>;
  /** the agent's signer clock (unix seconds); the server's clock is the test runtime's */
  signerNow?: () => number;
}

export interface CallResult {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export async function buildPurchaseWorld(base: string, adminToken: string, options: WorldOptions = {}) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    token = adminToken,
    extra: Record<string, string> = {},
  ): Promise<CallResult> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...extra,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  const must = async (method: string, path: string, body?: unknown, token = adminToken) => {
    const res = await call(method, path, body, token);
    if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateJwk = privateKey.export({ format: 'jwk' }) as { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };
  const pub = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };

  await must('POST', '/v1/entities', { type: 'person', id: 'alice', display_name: 'Alice' });
  await must('POST', '/v1/entities', {
    type: 'agent',
    id: 'shopper-1',
    display_name: 'Shopper',
    public_key_jwk: { kty: pub.kty, crv: pub.crv, x: pub.x },
  });
  await must('POST', '/v1/card-tokens', {
    id: 'tok-1',
    principal_entity_id: 'ns:entity:person:alice',
    network_token: 'ntk_alice_1',
  });
  await must('POST', '/v1/merchants', { id: 'grocer-1', display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
  await must('POST', '/v1/merchants', { id: 'casino-1', display_name: 'Casino', category: '7995', jurisdiction: 'DE' });
  await must('POST', '/v1/merchants', { id: 'shop-us', display_name: 'US shop', category: '5411', jurisdiction: 'US' });
  const grant = await must('POST', '/v1/grants', {
    principal_entity_id: 'ns:entity:person:alice',
    actor_entity_id: 'ns:entity:agent:shopper-1',
    capability_id: 'ns:capability:payment_action:card_purchase',
    resource_id: 'ns:credential:card-token:tok-1',
    scope: options.scope ?? {
      max_amount_per_purchase: { amount: 50, currency: 'EUR' },
      max_daily_amount: { amount: 100, currency: 'EUR' },
      requires_approval_above: { amount: 40, currency: 'EUR' },
      blocked_merchant_categories: ['7995'],
      allowed_jurisdictions: ['DE', 'FR'],
      valid_until: inOneYear(),
    },
  });
  const runtimeToken: string = (await must('POST', '/v1/tokens', { role: 'runtime' })).token;
  const principalToken: string = (
    await must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:person:alice' })
  ).token;
  const signer = createRequestSigner({
    keyId: 'ns:entity:agent:shopper-1',
    privateJwk,
    ...(options.signerNow ? { now: options.signerNow } : {}),
  });

  const purchase = (amount: number, extra: Record<string, unknown> = {}) => ({
    actor_entity_id: 'ns:entity:agent:shopper-1',
    principal_entity_id: 'ns:entity:person:alice',
    subject: 'ns:capability:payment_action:card_purchase',
    resource: { merchant_id: 'grocer-1', amount, currency: 'EUR' },
    scope: { instrument: 'ns:card_token:tok-1' },
    ...extra,
  });

  /** POSTs a signed authorize; `headers` overrides or removes (undefined) signature headers */
  const authorize = async (
    body: unknown,
    tamper?: (h: Record<string, string>) => Record<string, string>,
  ): Promise<CallResult> => {
    const text = JSON.stringify(body);
    const url = `${base}/v1/runtime/authorize`;
    let sig: Record<string, string> = { ...(await signer.sign({ method: 'POST', url, body: text })) };
    if (tamper) sig = tamper(sig);
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${runtimeToken}`, 'content-type': 'application/json', ...sig },
      body: text,
    });
    return { status: res.status, body: await res.json(), headers: res.headers };
  };

  return { call, must, grant, runtimeToken, principalToken, signer, privateJwk, purchase, authorize };
}
