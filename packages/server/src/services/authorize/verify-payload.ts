/**
 * Step 1 of CONTRACT section 3: is the request signed by the agent, over this very request, recently?
 * The key comes only from the agent's registration (keyid must name the requesting actor); the algorithm comes
 * from that key. Whether the nonce is new is decided later, inside the decision's transaction.
 * `@target-uri` (CONTRACT section 7): each configured public base URL (AAR_PUBLIC_URL) joined with the path and query
 * exactly as received. Attacker assumption: Host, X-Forwarded-* and Forwarded are the client's to choose, so none is
 * read: behind a TLS-terminating proxy the agent's `https://…` signature verifies, and a signature captured from
 * another deployment that trusts the same agent key never does. One candidate per configured URL, never more.
 */
import {
  MAX_TARGET_URIS,
  tryParseEntityId,
  verifyRequestSignature,
  type Ed25519PublicJwk,
  type RequestSignatureResult,
} from '@aar/core';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { nativeEd25519VerifyOffThread } from '../../crypto/native-ed25519.ts';
import type { FactReader } from './cached-facts.ts';

export interface PayloadVerification {
  result: RequestSignatureResult;
  /** the agent key id and nonce to remember, set only when the signature is valid and fresh */
  nonce?: { keyid: string; nonce: string; created: number };
}

export async function verifyPayload(
  ctx: AppContext,
  request: FastifyRequest,
  actorEntityId: string,
  facts: FactReader,
): Promise<PayloadVerification> {
  const targetUris = targetUrisOf(ctx.config.publicUrls, request.url);
  const resolveKey = async (keyid: string): Promise<Ed25519PublicJwk | undefined> => {
    if (tryParseEntityId(keyid)?.id !== actorEntityId) return undefined; // a key of another entity never signs for this actor
    // the agent's registration at the version this authorize read first (cached-facts.ts)
    const row = await facts.entity(actorEntityId);
    if (!row?.public_key_jwk || row.state === 'tombstoned') return undefined;
    return JSON.parse(row.public_key_jwk) as Ed25519PublicJwk;
  };
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const result = await verifyRequestSignature(
    {
      method: request.method,
      url: targetUris[0] as string,
      headers: request.headers as Record<string, string | string[] | undefined>,
      body: request.rawBody ?? new Uint8Array(),
    },
    resolveKey,
    now,
    { windowSeconds: ctx.config.signatureWindowSeconds, ed25519Verify: nativeEd25519VerifyOffThread, targetUris },
  );
  if (result.status === 'valid' && result.keyid && result.nonce && result.created !== undefined) {
    return { result, nonce: { keyid: actorEntityId, nonce: result.nonce, created: result.created } };
  }
  return { result };
}

/**
 * The candidate target URIs: every distinct public base URL + the request-target as received (origin-form, so it
 * starts with `/`). Anything else (absolute-form, `*`) gets a candidate no signature can match, never a guess.
 */
export function targetUrisOf(publicUrls: readonly string[], requestTarget: string): string[] {
  const path = requestTarget.startsWith('/') ? requestTarget : `/${encodeURIComponent(requestTarget)}`;
  return [...new Set(publicUrls)].slice(0, MAX_TARGET_URIS).map((base) => `${base}${path}`);
}
