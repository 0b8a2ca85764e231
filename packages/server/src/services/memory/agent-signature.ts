/**
 * The agent's RFC 9421 signature over a memory write (CONTRACT section 7), checked exactly as authorize checks its
 * payloads (services/authorize/verify-payload.ts: same core verifier, same `@target-uri` candidates from the configured
 * public URLs, same freshness window), with the key taken only from the writing agent's registration: a signature by
 * any other key, or by the agent for another request, never verifies. The nonce is remembered in `request_nonces`,
 * the table authorize uses, inside the write's unit: a signed request is accepted once, by either endpoint.
 * Attacker assumption: the runtime credential may be stolen; without the agent's private key it cannot write memory
 * in the agent's name (when AAR_REQUIRE_SIGNED_REQUESTS is on, the default).
 */
import { AarError, tryParseEntityId, verifyRequestSignature, type Ed25519PublicJwk } from '@aar/core';
import type { FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { nativeEd25519VerifyOffThread } from '../../crypto/native-ed25519.ts';
import type { Database } from '../../store/index.ts';
import { targetUrisOf } from '../authorize/verify-payload.ts';
import { nonceExpiry } from '../authorize/write-decision.ts';

export interface VerifiedAgentSignature {
  keyThumbprint: string;
  created: number;
  nonce: string;
}

/** 400 `invalid_signature` unless the request carries a valid, fresh signature by `agentEntityId`'s registered key. */
export async function verifyAgentSignature(
  ctx: AppContext,
  request: FastifyRequest,
  agentEntityId: string,
): Promise<VerifiedAgentSignature> {
  const agent = await ctx.store.db
    .selectFrom('entities')
    .select(['public_key_jwk', 'key_thumbprint', 'state'])
    .where('entity_id', '=', agentEntityId)
    .executeTakeFirst();
  const resolveKey = async (keyid: string): Promise<Ed25519PublicJwk | undefined> => {
    if (tryParseEntityId(keyid)?.id !== agentEntityId) return undefined;
    if (!agent?.public_key_jwk || agent.state === 'tombstoned') return undefined;
    return JSON.parse(agent.public_key_jwk) as Ed25519PublicJwk;
  };
  const targetUris = targetUrisOf(ctx.config.publicUrls, request.url);
  const result = await verifyRequestSignature(
    {
      method: request.method,
      url: targetUris[0] as string,
      headers: request.headers as Record<string, string | string[] | undefined>,
      body: request.rawBody ?? new Uint8Array(),
    },
    resolveKey,
    Math.floor(ctx.clock.now().getTime() / 1000),
    { windowSeconds: ctx.config.signatureWindowSeconds, ed25519Verify: nativeEd25519VerifyOffThread, targetUris },
  );
  if (result.status !== 'valid' || !result.nonce || result.created === undefined || !agent?.key_thumbprint) {
    throw new AarError(
      'invalid_signature',
      `the agent's request signature is ${result.status} (${result.failure ?? 'no key'}); a memory write must be ` +
        `signed by \`${agentEntityId}\` (RFC 9421, as authorize)`,
      { extra: { signature_status: result.status, failure: result.failure ?? 'unknown_key' } },
    );
  }
  return { keyThumbprint: agent.key_thumbprint, created: result.created, nonce: result.nonce };
}

/** Records the nonce inside the write's unit; 400 `invalid_signature` when it was already used. */
export async function rememberNonce(
  trx: Transaction<Database>,
  ctx: AppContext,
  agentEntityId: string,
  signature: VerifiedAgentSignature,
): Promise<void> {
  const inserted = await trx
    .insertInto('request_nonces')
    .values({
      keyid: agentEntityId,
      nonce: signature.nonce,
      created: signature.created,
      expires_at: nonceExpiry(signature.created, ctx.config.signatureWindowSeconds),
    })
    .onConflict((oc) => oc.columns(['keyid', 'nonce']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) {
    throw new AarError('invalid_signature', 'this request signature was used already (its nonce is replayed)', {
      extra: { signature_status: 'invalid', failure: 'nonce_replayed' },
    });
  }
}
