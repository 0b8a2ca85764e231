/**
 * One key lookup for every webhook verifier. The key comes only from the caller's resolver (our trusted JWKS), by
 * exact key id, never from the message; what the resolver returns is parsed as an Ed25519 public JWK, and an answer
 * naming another `kid` is refused (a resolver bug must not become a forgery). A throwing resolver propagates: a
 * store failure is not a verdict.
 */
import { tryDecodeBase64Url } from '../encoding/base64url.ts';
import type { Ed25519PublicJwk } from '../signing/ed25519-jwk.ts';
import { parsePublicEd25519Jwk } from '../signing/ed25519-jwk.ts';

export type WebhookKeyResolver = (
  keyId: string,
) => Ed25519PublicJwk | undefined | null | Promise<Ed25519PublicJwk | undefined | null>;

export type TrustedKeyResult =
  { ok: true; jwk: Ed25519PublicJwk; publicKey: Uint8Array } | { ok: false; failure: 'unknown_key' | 'invalid_key' };

export async function resolveTrustedKey(resolveKey: WebhookKeyResolver, keyId: string): Promise<TrustedKeyResult> {
  const found = await resolveKey(keyId);
  if (found === undefined || found === null) return { ok: false, failure: 'unknown_key' };
  let jwk: Ed25519PublicJwk;
  try {
    jwk = parsePublicEd25519Jwk(found, '');
  } catch {
    return { ok: false, failure: 'invalid_key' };
  }
  if (jwk.kid !== undefined && jwk.kid !== keyId) return { ok: false, failure: 'invalid_key' };
  const publicKey = tryDecodeBase64Url(jwk.x);
  if (publicKey === undefined || publicKey.length !== 32) return { ok: false, failure: 'invalid_key' };
  return { ok: true, jwk, publicKey };
}
