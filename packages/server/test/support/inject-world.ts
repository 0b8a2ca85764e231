/**
 * A purchase world driven through `app.inject` (no socket): alice (a person) with card token tok-1, agents with
 * registered Ed25519 keys, merchants, runtime and principal credentials. Agents sign authorize requests and
 * delegation statements with the test clock, for the public URL the runtime was started with (`PUBLIC_URL`), so
 * moving the clock moves them too.
 */
import { generateKeyPairSync, randomBytes, sign as nodeSign, type KeyObject } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildDelegationStatement, signDocument, type DocumentSigner } from '@aar/core';
import { createRequestSigner, type RequestSigner } from '@aar/sdk';
import type { Clock } from '../../src/clock.ts';
import { ADMIN_TOKEN } from './test-runtime.ts';

/** The public URL inject-world runtimes are started with (`config.publicUrls`): what agents sign for. */
export const PUBLIC_URL = 'http://127.0.0.1:8080';
export const ALICE = 'ns:entity:person:alice';

export interface InjectResult {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

interface Agent {
  id: string;
  requests: RequestSigner;
  documents: DocumentSigner;
}

export type InjectWorld = Awaited<ReturnType<typeof buildInjectWorld>>;

export async function buildInjectWorld(app: FastifyInstance, clock: Clock) {
  const call = async (method: string, url: string, body?: unknown, token = ADMIN_TOKEN): Promise<InjectResult> => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };
  const must = async (method: string, url: string, body?: unknown, token?: string) => {
    const res = await call(method, url, body, token);
    if (res.status >= 300) throw new Error(`${method} ${url} -> ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
  const agents = new Map<string, Agent>();

  const addAgent = async (name: string): Promise<string> => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
    const id = `ns:entity:agent:${name}`;
    await must('POST', '/v1/entities', {
      type: 'agent',
      id: name,
      display_name: name,
      public_key_jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
    });
    agents.set(id, agentOf(id, privateKey, nowSeconds));
    return id;
  };

  await must('POST', '/v1/entities', { type: 'person', id: 'alice', display_name: 'Alice' });
  await must('POST', '/v1/card-tokens', { id: 'tok-1', principal_entity_id: ALICE, network_token: 'ntk_alice_1' });
  await must('POST', '/v1/merchants', { id: 'grocer-1', display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
  await must('POST', '/v1/merchants', { id: 'casino-1', display_name: 'Casino', category: '7995', jurisdiction: 'DE' });
  const runtimeToken: string = (await must('POST', '/v1/tokens', { role: 'runtime' })).token;
  const aliceToken: string = (await must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: ALICE }))
    .token;

  /** A signed POST /v1/runtime/authorize as the agent `actor` (one of this world's agents). */
  const authorize = async (actor: string, body: unknown): Promise<InjectResult> => {
    const text = JSON.stringify(body);
    const path = '/v1/runtime/authorize';
    const sig = await agents.get(actor)!.requests.sign({ method: 'POST', url: `${PUBLIC_URL}${path}`, body: text });
    const res = await app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${runtimeToken}`, 'content-type': 'application/json', ...sig },
      payload: text,
    });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };

  /** POST /v1/grants for a sub-delegation of `parentGrantId`, with the statement signed by its actor `by`. */
  const delegate = async (parentGrantId: string, by: string, to: string, scope: Record<string, unknown>) => {
    const request = { parent_grant_id: parentGrantId, actor_entity_id: to, scope };
    const created = new Date(nowSeconds() * 1000).toISOString();
    // random letters: a long run of digits would be refused as a card number (CONTRACT section 7)
    const nonce = `n-${randomBytes(18).toString('base64url').replace(/[0-9]/g, 'x')}`;
    const signed = await signDocument(
      buildDelegationStatement({ delegator_entity_id: by, created, nonce, request }),
      agents.get(by)!.documents,
    );
    return call('POST', '/v1/grants', { ...request, delegator_proof: { created, nonce, signature: signed.signature } });
  };

  return { call, must, addAgent, authorize, delegate, runtimeToken, aliceToken, agents };
}

function agentOf(id: string, privateKey: KeyObject, nowSeconds: () => number): Agent {
  return {
    id,
    requests: createRequestSigner({
      keyId: id,
      privateJwk: privateKey.export({ format: 'jwk' }) as never,
      now: nowSeconds,
    }),
    documents: { keyId: id, sign: async (m) => new Uint8Array(nodeSign(null, m, privateKey)) },
  };
}
