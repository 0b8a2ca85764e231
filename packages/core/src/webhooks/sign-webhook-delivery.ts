/**
 * The sender's side of webhook delivery (CONTRACT section 9): the body, content type and headers of one attempt.
 * What each profile sends:
 * - every profile: `webhook-id` (the envelope's `event_id`), `webhook-timestamp` (the attempt's unix seconds) and
 *   `webhook-signature` over `{id}.{timestamp}.{body}`, so the timestamp is authenticated whatever the profile;
 * - `shared_secret`: one `v1,<HMAC-SHA256>` per secret (two while a rotated secret overlaps the old one); the body is
 *   the envelope's RFC 8785 bytes, signed per CONTRACT section 4 when a `signer` is given (recommended: the
 *   envelope is then the same signed document `GET /v1/events` serves), as given otherwise;
 * - `asymmetric`: the envelope signed per section 4 as the body, `v1a,<Ed25519>` with the same key, and the hint
 *   `webhook-key-id`;
 * - `cose`: a tagged COSE_Sign1 whose payload is the RFC 8785 bytes of the envelope signed per section 4 (so the
 *   envelope inside stays a self-verifying document once unwrapped), `v1a` over the COSE bytes, and
 *   `webhook-key-id`.
 * Pure: the time and the keys are arguments. Each call signs afresh (Ed25519 is deterministic; HMAC too), so a retry
 * with a new timestamp gets new signatures over the same body. The two halves are exported for senders that make
 * many attempts: `webhookDeliveryBody` (the body: depends on the envelope, profile and key only, so it may be
 * computed once and reused) and `signWebhookAttempt` (the headers of one attempt at one time, over that body).
 * Throws `internal` for inputs that only a bug produces (no secret, no signer, an envelope whose `event_id` is not
 * the webhook id) and `invalid_json` for an envelope JSON cannot hold.
 */
import { AarError } from '../errors/aar-error.ts';
import { canonicalBytes } from '../json/canonical-json.ts';
import type { DocumentSigner } from '../signing/sign-document.ts';
import { signDocument } from '../signing/sign-document.ts';
import { signCoseSign1 } from './cose-sign1.ts';
import { hmacSha256 } from './hmac-sha256.ts';
import { isServiceKeyId } from './service-key-id.ts';
import { isWebhookId, isWebhookTimestamp, webhookSignedContent } from './signed-content.ts';
import type { WebhookProfile } from './webhook-profile.ts';
import {
  isWebhookProfile,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_ID_HEADER,
  WEBHOOK_KEY_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './webhook-profile.ts';
import { parseWebhookSecret } from './webhook-secret.ts';
import type { WebhookSignatureEntry } from './webhook-signature-header.ts';
import { formatWebhookSignatureHeader } from './webhook-signature-header.ts';

export interface WebhookDeliveryInput {
  profile: WebhookProfile;
  /** = envelope.event_id (Standard Webhooks `webhook-id`) */
  webhookId: string;
  /** unix seconds, the delivery attempt's time (`webhook-timestamp`) */
  timestamp: number;
  /** the ns.webhook.v1 envelope without signature (asymmetric and cose add it; shared_secret adds it with a signer) */
  envelope: object;
  /** shared_secret: one or two `whsec_...` secrets (two during rotation) */
  secrets?: string[];
  /** asymmetric and cose (required), shared_secret (optional): the service's current Ed25519 key */
  signer?: DocumentSigner;
  /** shared_secret: computes HMAC-SHA256 of `content` under the secret's key (default: WebCrypto, `hmacSha256`) */
  mac?: WebhookMac;
}

/**
 * HMAC-SHA256 of `content` under the key of the `whsec_` secret `secret` (a caller may cache imported keys by
 * secret; it must derive the key exactly as `parseWebhookSecret` does).
 */
export type WebhookMac = (secret: string, content: Uint8Array) => Promise<Uint8Array> | Uint8Array;

/** The timestamp-independent half of a delivery: what is POSTed, and as what. */
export interface WebhookDeliveryBody {
  body: Uint8Array;
  contentType: string;
}

export interface SignedWebhookDelivery {
  /** the exact bytes to POST */
  body: Uint8Array;
  /** the `content-type` to send (not repeated in `headers`) */
  contentType: string;
  /** lowercase names: webhook-id, webhook-timestamp, webhook-signature, and webhook-key-id for asymmetric and cose */
  headers: Record<string, string>;
}

function bug(message: string): AarError {
  return new AarError('internal', message);
}

function checkInput(input: WebhookDeliveryInput): void {
  if (!isWebhookProfile(input.profile)) throw bug(`unknown webhook profile \`${String(input.profile)}\``);
  if (!isWebhookId(input.webhookId)) throw bug('the webhook id must be 1 to 256 of `A-Za-z0-9:_-`');
  if (!isWebhookTimestamp(input.timestamp)) throw bug('the timestamp must be whole unix seconds');
  const envelope = input.envelope as { event_id?: unknown } | null;
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    throw bug('the envelope must be a json object');
  }
  // INVARIANT: receivers de-duplicate by webhook-id and find the event by event_id: the two are one value.
  if (envelope.event_id !== input.webhookId) throw bug('the webhook id must be the envelope `event_id`');
  if (input.signer !== undefined && !isServiceKeyId(input.signer.keyId)) {
    throw bug('the signer key id must be `ns:key:<name>`');
  }
  if (input.profile === 'shared_secret') {
    if (!Array.isArray(input.secrets) || input.secrets.length < 1 || input.secrets.length > 2) {
      throw bug('shared_secret signs with one or two secrets');
    }
  } else if (input.signer === undefined) {
    throw bug(`${input.profile} needs the service signer`);
  }
}

async function ed25519Entry(signer: DocumentSigner, content: Uint8Array): Promise<WebhookSignatureEntry> {
  const signature = await signer.sign(content);
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    throw bug('the signer did not return a 64-byte ed25519 signature');
  }
  return { version: 'v1a', signature };
}

const defaultMac: WebhookMac = (secret, content) => hmacSha256(parseWebhookSecret(secret), content);

/**
 * The body of a delivery of `envelope` in `profile`: the same bytes for every attempt, every endpoint of the profile
 * and every timestamp, as long as the signer's key is the same (Ed25519 is deterministic).
 */
export async function webhookDeliveryBody(
  profile: WebhookProfile,
  envelope: object,
  signer: DocumentSigner | undefined,
): Promise<WebhookDeliveryBody> {
  const signed = signer === undefined ? envelope : await signDocument(envelope, signer);
  const json = canonicalBytes(signed);
  const body = profile === 'cose' ? await signCoseSign1(json, signer as DocumentSigner) : json;
  return { body, contentType: WEBHOOK_CONTENT_TYPES[profile] };
}

/**
 * The headers of one attempt at `input.timestamp` over `body` (which must be `webhookDeliveryBody` of the same
 * envelope, profile and signer: the headers say nothing the body does not). Checks its input like
 * `signWebhookDelivery`.
 */
export async function signWebhookAttempt(
  input: WebhookDeliveryInput,
  body: WebhookDeliveryBody,
): Promise<SignedWebhookDelivery> {
  checkInput(input);
  const { profile, webhookId, timestamp, signer } = input;
  if (body.contentType !== WEBHOOK_CONTENT_TYPES[profile]) throw bug('the body was made for another profile');
  const content = webhookSignedContent(webhookId, timestamp, body.body);
  const entries: WebhookSignatureEntry[] = [];
  if (profile === 'shared_secret') {
    const mac = input.mac ?? defaultMac;
    for (const secret of input.secrets as string[]) {
      entries.push({ version: 'v1', signature: await mac(secret, content) });
    }
  } else {
    entries.push(await ed25519Entry(signer as DocumentSigner, content));
  }
  const headers: Record<string, string> = {
    [WEBHOOK_ID_HEADER]: webhookId,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: formatWebhookSignatureHeader(entries),
  };
  if (profile !== 'shared_secret') headers[WEBHOOK_KEY_ID_HEADER] = (signer as DocumentSigner).keyId;
  return { body: body.body, contentType: body.contentType, headers };
}

export async function signWebhookDelivery(input: WebhookDeliveryInput): Promise<SignedWebhookDelivery> {
  checkInput(input);
  return signWebhookAttempt(input, await webhookDeliveryBody(input.profile, input.envelope, input.signer));
}
