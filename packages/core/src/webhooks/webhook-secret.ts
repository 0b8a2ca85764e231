/**
 * Standard Webhooks secrets: `whsec_` + padded base64 of 24 to 64 random bytes; the HMAC key is the decoded bytes.
 * Core has no randomness: the caller passes the random bytes (the server: `crypto.getRandomValues`).
 * Error messages never echo a secret.
 */
import { AarError } from '../errors/aar-error.ts';
import { encodeBase64, tryDecodeBase64 } from '../encoding/base64.ts';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const WEBHOOK_SECRET_MIN_BYTES = 24;
export const WEBHOOK_SECRET_MAX_BYTES = 64;

function checkLength(length: number): boolean {
  return length >= WEBHOOK_SECRET_MIN_BYTES && length <= WEBHOOK_SECRET_MAX_BYTES;
}

/** `whsec_` + base64 of `random`; throws `invalid_request` unless it holds 24 to 64 bytes. */
export function generateWebhookSecret(random: Uint8Array): string {
  if (!(random instanceof Uint8Array) || !checkLength(random.length)) {
    throw new AarError('invalid_request', 'a webhook secret needs 24 to 64 random bytes');
  }
  return WEBHOOK_SECRET_PREFIX + encodeBase64(random);
}

/** The HMAC key of a `whsec_` secret; throws `invalid_request` for any other form (strict padded base64). */
export function parseWebhookSecret(secret: string): Uint8Array {
  if (typeof secret !== 'string' || !secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new AarError('invalid_request', 'a webhook secret must start with `whsec_`');
  }
  const key = tryDecodeBase64(secret.slice(WEBHOOK_SECRET_PREFIX.length));
  if (key === undefined || !checkLength(key.length)) {
    throw new AarError('invalid_request', 'a webhook secret must be `whsec_` and the base64 of 24 to 64 bytes');
  }
  return key;
}
