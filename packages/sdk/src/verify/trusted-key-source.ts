/**
 * What the SDK's verifiers accept as trusted keys: core's `TrustedKeys` (a JWKS, or a lookup by kid over keys the
 * caller trusts) or a JwksSource. A source is asked, before verifying, for the key ids the document names (at most
 * one refetch), so that core's synchronous verifiers run over a set already in hand. The key ids are read from the
 * document only to know what to look up: trust still comes only from the source.
 */
import type { TrustedKeys } from '@aar/core';
import { isJwksSource, type JwksSource } from '../jwks/create-jwks-source.ts';

export type TrustedKeySource = TrustedKeys | JwksSource;

const MAX_DEPTH = 8;
const MAX_KIDS = 64;

/** Every `signature.key_id` string inside `value`, a few levels deep (a signed document nests signed parts). */
export function collectKeyIds(value: unknown, into: Set<string> = new Set(), depth = 0): Set<string> {
  if (depth > MAX_DEPTH || into.size >= MAX_KIDS || typeof value !== 'object' || value === null) return into;
  if (Array.isArray(value)) {
    for (const item of value) collectKeyIds(item, into, depth + 1);
    return into;
  }
  const signature = (value as { signature?: unknown }).signature;
  const kid = (signature as { key_id?: unknown } | null | undefined)?.key_id;
  if (typeof kid === 'string' && kid.length > 0 && kid.length <= 256) into.add(kid);
  for (const member of Object.values(value)) collectKeyIds(member, into, depth + 1);
  return into;
}

export async function resolveTrustedKeys(trusted: TrustedKeySource, ...documents: unknown[]): Promise<TrustedKeys> {
  if (!isJwksSource(trusted)) return trusted;
  const kids = new Set<string>();
  for (const doc of documents) collectKeyIds(doc, kids);
  return trusted.trustedKeysFor(kids);
}
