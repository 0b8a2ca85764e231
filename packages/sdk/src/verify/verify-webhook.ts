/**
 * The receiver's side of webhook delivery (CONTRACT section 9: `shared_secret`, `asymmetric`, `cose`): core's
 * verifier with the receiver's clock read here, the body accepted as received (a string is taken as its UTF-8
 * bytes; a Node Buffer is a Uint8Array), and the service keys from a JwksSource or a JWKS.
 * INVARIANT: pass the raw body as it arrived; a body parsed and serialised again no longer verifies.
 */
import {
  verifyWebhookDelivery as verifyWithCore,
  type Ed25519PublicJwk,
  type Jwks,
  type VerifyWebhookOptions,
  type WebhookKeyResolver,
  type WebhookVerificationResult,
} from '@aar/core';
import { isJwksSource, type JwksSource } from '../jwks/create-jwks-source.ts';

export interface VerifyWebhookInput extends Omit<VerifyWebhookOptions, 'body' | 'now' | 'resolveKey'> {
  body: Uint8Array | string;
  /** unix seconds; default the system clock */
  now?: number;
  /** the service keys (asymmetric, cose; optional for shared_secret): a JwksSource, a JWKS, or a lookup by kid */
  keys?: JwksSource | Jwks | WebhookKeyResolver;
}

function resolverOf(keys: JwksSource | Jwks | WebhookKeyResolver): WebhookKeyResolver {
  if (typeof keys === 'function') return keys;
  if (isJwksSource(keys)) return (kid) => keys.getKey(kid);
  return (kid): Ed25519PublicJwk | undefined => {
    const matches = keys.keys.filter((key) => key.kid === kid);
    return matches.length === 1 ? matches[0] : undefined;
  };
}

export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookVerificationResult> {
  const { body, now, keys, ...rest } = input;
  return verifyWithCore({
    ...rest,
    body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
    now: now ?? Math.floor(Date.now() / 1000),
    ...(keys === undefined ? {} : { resolveKey: resolverOf(keys) }),
  });
}
