/** What verifying a webhook delivery found: a verdict, a stable failure code, and the facts that were authenticated. */
import type { CoseVerifyFailure } from './verify-cose-sign1.ts';

export type WebhookVerificationFailure =
  | 'missing_header' // webhook-id, webhook-timestamp or webhook-signature absent (detail names it)
  | 'malformed_header' // a header present but not of its form (detail names it)
  | 'signature_missing' // webhook-signature holds no entry of the profile's version (v1 / v1a)
  | 'signature_invalid' // no entry verifies
  | 'invalid_key_id' // the key id is not `ns:key:<name>` (`../x` and the like): never looked up
  | 'key_id_mismatch' // the webhook-key-id hint, the envelope's key_id and the COSE kid disagree
  | 'unknown_key' // not in the receiver's trusted keys
  | 'invalid_key' // the trusted set answered with something that is not this Ed25519 key
  | 'envelope_invalid' // the body (or COSE payload) is not a strict-JSON ns.webhook.v1 envelope
  | 'envelope_id_mismatch' // the envelope's event_id is not the webhook-id
  | 'document_signature_invalid' // the envelope's own signature (CONTRACT section 4) fails; detail says why
  | 'timestamp_stale' // authentic, but older than the tolerance
  | 'timestamp_in_future' // authentic, but newer than the tolerance
  | 'replayed' // authentic and fresh, but the receiver has seen this webhook-id
  | Exclude<CoseVerifyFailure, 'unknown_key' | 'invalid_key'>;

export interface WebhookVerificationResult {
  valid: boolean;
  /** absent when `valid` */
  code?: WebhookVerificationFailure;
  /** for logs: which header, which check; never a secret */
  detail?: string;
  webhook_id?: string;
  /** unix seconds from webhook-timestamp */
  timestamp?: number;
  /** the service key that verified (asymmetric, cose; shared_secret when the envelope signature was checked) */
  key_id?: string;
  /** the verified envelope; only when `valid` */
  envelope?: Record<string, unknown>;
}
