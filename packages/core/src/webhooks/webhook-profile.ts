/**
 * The three webhook signing profiles of CONTRACT section 9 and the Standard Webhooks names they share.
 * Every profile sends `webhook-id` (= the envelope's `event_id`), `webhook-timestamp` (unix seconds of the attempt)
 * and `webhook-signature`; they differ in what signs and what the body is:
 * - `shared_secret`: `v1,<base64 HMAC-SHA256>` per secret; body the envelope's RFC 8785 bytes.
 * - `asymmetric`: `v1a,<base64 Ed25519>` with the service key; body the signed envelope's RFC 8785 bytes.
 * - `cose`: `v1a` as above; body a COSE_Sign1 (RFC 9052) whose payload is the signed envelope's RFC 8785 bytes.
 */
export type WebhookProfile = 'shared_secret' | 'asymmetric' | 'cose';

export const WEBHOOK_PROFILES: readonly WebhookProfile[] = ['shared_secret', 'asymmetric', 'cose'];

export function isWebhookProfile(value: unknown): value is WebhookProfile {
  return typeof value === 'string' && (WEBHOOK_PROFILES as readonly string[]).includes(value);
}

/** Standard Webhooks: a delivery is fresh when |now - webhook-timestamp| <= 300 s, either way, inclusive. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Header names, lowercase (HTTP field names are case-insensitive; the verifier matches them so). */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** A hint only (asymmetric, cose): the key is the one the signed body names, looked up in the receiver's JWKS. */
export const WEBHOOK_KEY_ID_HEADER = 'webhook-key-id';

export const WEBHOOK_CONTENT_TYPES: Readonly<Record<WebhookProfile, string>> = {
  shared_secret: 'application/json',
  asymmetric: 'application/json',
  cose: 'application/cose',
};

/** The envelope schema every delivery carries (CONTRACT section 9). */
export const WEBHOOK_ENVELOPE_VERSION = 'ns.webhook.v1';
