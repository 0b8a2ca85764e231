/**
 * Reads `Authorization: Bearer <token>` (RFC 6750; the scheme is case-insensitive, so `bearer` is accepted).
 * The token is any run of visible ASCII: our secrets are base64url, but an operator's AAR_BOOTSTRAP_TOKEN may not be.
 */
import type { FastifyRequest } from 'fastify';
import { hashToken } from './api-tokens.ts';

/** Longer values are not ours; refusing them early keeps a megabyte header from being hashed per request. */
const MAX_TOKEN_LENGTH = 512;
const BEARER = /^bearer +([\x21-\x7e]+) *$/i;

export type BearerToken = { kind: 'absent' } | { kind: 'malformed' } | { kind: 'present'; token: string };

export function readBearerToken(request: Pick<FastifyRequest, 'headers'>): BearerToken {
  const header = request.headers.authorization;
  if (header === undefined || header === '') return { kind: 'absent' };
  const match = BEARER.exec(header);
  const token = match?.[1];
  if (token === undefined || token.length > MAX_TOKEN_LENGTH) return { kind: 'malformed' };
  return { kind: 'present', token };
}

/** hashes of presented tokens, per request: the rate limit and authentication both need it, once is enough */
const presentedHashes = new WeakMap<object, string>();

/** `hashToken(token)` for the token `request` presents, computed once per request. */
export function presentedTokenHash(request: object, token: string): string {
  let hash = presentedHashes.get(request);
  if (hash === undefined) {
    hash = hashToken(token);
    presentedHashes.set(request, hash);
  }
  return hash;
}
