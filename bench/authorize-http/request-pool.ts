/**
 * Requests signed before the clock starts: signing is the agent's cost, not the service's. Each authorize request
 * carries its own RFC 9421 signature with a fresh nonce, so a request may be sent once only; a second send is a
 * replay, which the service answers with a deny (`payload_replayed`) and the benchmark would count as one.
 */
import { createRequestSigner } from '@aar/sdk';
import type { BenchWorld } from './build-world.ts';

export const AUTHORIZE_PATH = '/v1/runtime/authorize';

export interface SignedRequest {
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Batches of concurrent signatures: WebCrypto signs off the main thread, so two cores sign in parallel. */
const SIGN_BATCH = 256;

/**
 * `count` authorize requests, each signed with its own nonce over `@method`, `@target-uri` and `content-digest`, by
 * the world's agents in turn (request i by agent i mod the number of agents, with that agent's purchase body).
 */
export async function signRequestPool(world: BenchWorld, count: number): Promise<SignedRequest[]> {
  const agents = world.agents.map((agent) => ({
    signer: createRequestSigner({ keyId: agent.keyId, privateJwk: agent.privateJwk }),
    body: JSON.stringify(agent.body),
  }));
  const url = `${world.base}${AUTHORIZE_PATH}`;
  const pool: SignedRequest[] = [];
  while (pool.length < count) {
    const batch = Math.min(SIGN_BATCH, count - pool.length);
    const start = pool.length;
    const signed = await Promise.all(
      Array.from({ length: batch }, async (_, i) => {
        const { signer, body } = agents[(start + i) % agents.length]!;
        return { signature: await signer.sign({ method: 'POST', url, body }), body };
      }),
    );
    for (const { signature, body } of signed) {
      pool.push({
        method: 'POST',
        path: AUTHORIZE_PATH,
        headers: {
          authorization: `Bearer ${world.runtimeToken}`,
          'content-type': 'application/json',
          ...signature,
        },
        body,
      });
    }
  }
  return pool;
}

/** The same requests, headers and body byte for byte, sent to another path (the echo ceiling). */
export function redirectRequests(requests: readonly SignedRequest[], path: string): SignedRequest[] {
  return requests.map((r) => ({ ...r, path }));
}

export interface RequestFeed {
  /** the next request to send */
  next(): SignedRequest;
  /** how many `next()` calls found the pool used up and repeated its last request (a replay) */
  readonly overflow: number;
  readonly taken: number;
}

/**
 * Hands out requests in order. `once`: each request at most once (authorize); when the pool runs out the last one is
 * repeated and counted in `overflow`, so the run shows the mistake rather than hanging. `cycle`: round robin (echo).
 */
export function createRequestFeed(requests: readonly SignedRequest[], mode: 'once' | 'cycle'): RequestFeed {
  if (requests.length === 0) throw new Error('a request feed needs at least one request');
  let taken = 0;
  let overflow = 0;
  return {
    next() {
      const index = mode === 'cycle' ? taken % requests.length : Math.min(taken, requests.length - 1);
      if (mode === 'once' && taken >= requests.length) overflow++;
      taken++;
      return requests[index]!;
    },
    get overflow() {
      return overflow;
    },
    get taken() {
      return taken;
    },
  };
}
