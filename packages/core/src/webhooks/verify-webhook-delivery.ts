/**
 * The receiver's side of webhook delivery (CONTRACT section 9), for the three profiles. Attacker assumptions: the
 * headers and body are anyone's (a forger, or a replayer of a delivery captured earlier); the receiver trusts only
 * its configured secrets and the service's published keys (resolveKey: our JWKS, never a key the message carries).
 * Order: headers, signatures (and for asymmetric/cose the envelope's own signature), envelope, time, then replay.
 * So `timestamp_stale`, `timestamp_in_future` and `replayed` always mean "authentic, but refused", and `seenBefore`
 * sees only authentic, fresh ids: it may record the id atomically (insert if absent) without forged deliveries
 * filling its cache. Never throws for anything in the delivery; throws `internal` for bad options, and whatever a
 * throwing `resolveKey` or `seenBefore` throws (a store failure is not a verdict).
 */
import { AarError } from '../errors/aar-error.ts';
import type { HeaderSource } from '../http-signatures/http-request.ts';
import type { Ed25519VerifyFn } from '../http-signatures/verify-request-signature.ts';
import { parseStrictJsonBytes } from '../json/parse-strict-json-bytes.ts';
import { ed25519Verify } from '../signing/ed25519.ts';
import type { Ed25519PublicJwk } from '../signing/ed25519-jwk.ts';
import { verifyDocument } from '../signing/verify-document.ts';
import { coseSigStructure } from './cose-sign1.ts';
import { decodeCoseSign1 } from './decode-cose-sign1.ts';
import { hmacSha256Verify } from './hmac-sha256.ts';
import { readCoseSign1Headers } from './read-cose-sign1-headers.ts';
import type { WebhookHeaders } from './read-webhook-headers.ts';
import { readWebhookHeaders } from './read-webhook-headers.ts';
import type { WebhookKeyResolver } from './resolve-trusted-key.ts';
import { resolveTrustedKey } from './resolve-trusted-key.ts';
import { isServiceKeyId } from './service-key-id.ts';
import { webhookSignedContent } from './signed-content.ts';
import type { WebhookProfile } from './webhook-profile.ts';
import { isWebhookProfile, WEBHOOK_ENVELOPE_VERSION, WEBHOOK_TOLERANCE_SECONDS } from './webhook-profile.ts';
import { parseWebhookSecret } from './webhook-secret.ts';
import type { WebhookSignatureVersion } from './webhook-signature-header.ts';
import type { WebhookVerificationFailure, WebhookVerificationResult } from './webhook-verification-result.ts';

export interface VerifyWebhookOptions {
  profile: WebhookProfile;
  /** names case-insensitive; a plain object (Node, Fastify) or WHATWG `Headers` */
  headers: HeaderSource;
  /** the exact bytes received (never a re-serialised body) */
  body: Uint8Array;
  /** unix seconds from the receiver's clock (core reads no clock) */
  now: number;
  /** default 300, either way, inclusive */
  toleranceSeconds?: number;
  /** shared_secret: the endpoint's `whsec_` secrets (any one matching passes) */
  secrets?: string[];
  /**
   * asymmetric and cose (required), shared_secret (optional: then the envelope's own signature must verify too):
   * the service key by id, from the service's JWKS the receiver trusts; never fetched from a URL the message names
   */
  resolveKey?: WebhookKeyResolver;
  /** the receiver's replay cache: true if this webhook-id was delivered before (called only for authentic ids) */
  seenBefore?: (webhookId: string) => boolean | Promise<boolean>;
  /** core's strict WebCrypto verifier by default; a replacement must pass the same Wycheproof vectors */
  ed25519Verify?: Ed25519VerifyFn;
}

type Step<T> = { ok: true; value: T } | { ok: false; code: WebhookVerificationFailure; detail?: string };

interface Authentic {
  envelope: Record<string, unknown>;
  keyId?: string;
}

interface Checked {
  secretKeys: Uint8Array[];
  tolerance: number;
  verify: Ed25519VerifyFn;
}

const MAX_SECRETS = 8;

function refuse<T>(code: WebhookVerificationFailure, detail?: string): Step<T> {
  return detail === undefined ? { ok: false, code } : { ok: false, code, detail };
}

function checkOptions(o: VerifyWebhookOptions): Checked {
  if (!isWebhookProfile(o.profile)) throw new AarError('internal', `unknown webhook profile \`${String(o.profile)}\``);
  if (!(o.body instanceof Uint8Array)) throw new AarError('internal', 'the body must be the bytes received');
  if (typeof o.now !== 'number' || !Number.isFinite(o.now) || o.now < 0) {
    throw new AarError('internal', '`now` must be unix seconds');
  }
  const tolerance = o.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (!Number.isSafeInteger(tolerance) || tolerance < 0) throw new AarError('internal', 'tolerance must be seconds');
  let secretKeys: Uint8Array[] = [];
  if (o.profile === 'shared_secret') {
    if (!Array.isArray(o.secrets) || o.secrets.length === 0 || o.secrets.length > MAX_SECRETS) {
      throw new AarError('internal', 'shared_secret needs one to eight `whsec_` secrets');
    }
    secretKeys = o.secrets.map(parseWebhookSecret);
  } else if (typeof o.resolveKey !== 'function') {
    throw new AarError('internal', `${o.profile} needs resolveKey (the service's trusted keys)`);
  }
  if (o.resolveKey !== undefined && typeof o.resolveKey !== 'function') {
    throw new AarError('internal', 'resolveKey must be a function');
  }
  return { secretKeys, tolerance, verify: o.ed25519Verify ?? ed25519Verify };
}

function entriesOf(headers: WebhookHeaders, version: WebhookSignatureVersion): Uint8Array[] {
  return headers.signatures.filter((entry) => entry.version === version).map((entry) => entry.signature);
}

function parseEnvelope(bytes: Uint8Array): Step<Record<string, unknown>> {
  let value: unknown;
  try {
    value = parseStrictJsonBytes(bytes);
  } catch {
    return refuse('envelope_invalid', 'not strict json');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refuse('envelope_invalid', 'not a json object');
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function envelopeKeyId(envelope: Record<string, unknown>): string | undefined {
  const signature = envelope.signature;
  if (typeof signature !== 'object' || signature === null) return undefined;
  const keyId = (signature as { key_id?: unknown }).key_id;
  return typeof keyId === 'string' ? keyId : undefined;
}

/** The hint must agree with the key the signed content names; the id must be ours in form; then the lookup. */
async function trustedKey(
  o: VerifyWebhookOptions,
  headers: WebhookHeaders,
  keyId: string,
): Promise<Step<{ jwk: Ed25519PublicJwk; publicKey: Uint8Array }>> {
  if (headers.keyIdHint !== undefined && headers.keyIdHint !== keyId) {
    return refuse('key_id_mismatch', 'webhook-key-id names another key than the signed body');
  }
  if (!isServiceKeyId(keyId)) return refuse('invalid_key_id', 'not of the form `ns:key:<name>`');
  const key = await resolveTrustedKey(o.resolveKey as WebhookKeyResolver, keyId);
  return key.ok ? { ok: true, value: key } : refuse(key.failure);
}

async function anyEd25519(verify: Ed25519VerifyFn, key: Uint8Array, content: Uint8Array, sigs: Uint8Array[]) {
  for (const signature of sigs) if (await verify(key, content, signature)) return true;
  return false;
}

/** CONTRACT section 4 over the envelope, with exactly the key already trusted for this delivery. */
async function checkDocument(
  envelope: Record<string, unknown>,
  keyId: string,
  jwk: Ed25519PublicJwk,
): Promise<Step<null>> {
  const result = await verifyDocument(envelope, (kid) => (kid === keyId ? jwk : undefined));
  return result.valid ? { ok: true, value: null } : refuse('document_signature_invalid', result.failure);
}

async function verifySharedSecret(
  o: VerifyWebhookOptions,
  checked: Checked,
  headers: WebhookHeaders,
  content: Uint8Array,
): Promise<Step<Authentic>> {
  const macs = entriesOf(headers, 'v1');
  if (macs.length === 0) return refuse('signature_missing', 'no v1 signature');
  let matched = false;
  for (const mac of macs) {
    for (const key of checked.secretKeys) if (await hmacSha256Verify(key, content, mac)) matched = true;
  }
  if (!matched) return refuse('signature_invalid', 'no v1 signature matches a configured secret');
  const envelope = parseEnvelope(o.body);
  if (!envelope.ok) return envelope;
  if (o.resolveKey === undefined) return { ok: true, value: { envelope: envelope.value } };
  const keyId = envelopeKeyId(envelope.value);
  if (keyId === undefined) return refuse('document_signature_invalid', 'missing_signature');
  const key = await trustedKey(o, headers, keyId);
  if (!key.ok) return key;
  const document = await checkDocument(envelope.value, keyId, key.value.jwk);
  return document.ok ? { ok: true, value: { envelope: envelope.value, keyId } } : document;
}

async function verifyAsymmetric(
  o: VerifyWebhookOptions,
  checked: Checked,
  headers: WebhookHeaders,
  content: Uint8Array,
): Promise<Step<Authentic>> {
  const signatures = entriesOf(headers, 'v1a');
  if (signatures.length === 0) return refuse('signature_missing', 'no v1a signature');
  // The body names its key (the envelope's signature); parsing comes first only to learn which key to look up.
  const envelope = parseEnvelope(o.body);
  if (!envelope.ok) return envelope;
  const keyId = envelopeKeyId(envelope.value);
  if (keyId === undefined) return refuse('document_signature_invalid', 'missing_signature');
  const key = await trustedKey(o, headers, keyId);
  if (!key.ok) return key;
  if (!(await anyEd25519(checked.verify, key.value.publicKey, content, signatures))) {
    return refuse('signature_invalid', 'no v1a signature verifies with the named key');
  }
  const document = await checkDocument(envelope.value, keyId, key.value.jwk);
  return document.ok ? { ok: true, value: { envelope: envelope.value, keyId } } : document;
}

async function verifyCose(
  o: VerifyWebhookOptions,
  checked: Checked,
  headers: WebhookHeaders,
  content: Uint8Array,
): Promise<Step<Authentic>> {
  const signatures = entriesOf(headers, 'v1a');
  if (signatures.length === 0) return refuse('signature_missing', 'no v1a signature');
  const decoded = decodeCoseSign1(o.body);
  if (!decoded.ok) return refuse(decoded.failure, decoded.detail);
  const read = readCoseSign1Headers(decoded.message, { requireProtectedKid: true });
  if (!read.ok) return refuse(read.failure, read.detail);
  const keyId = read.headers.keyId;
  const key = await trustedKey(o, headers, keyId);
  if (!key.ok) return key;
  if (!(await anyEd25519(checked.verify, key.value.publicKey, content, signatures))) {
    return refuse('signature_invalid', 'no v1a signature verifies with the kid key');
  }
  const { protectedBytes, payload, signature } = decoded.message;
  // External AAD is always empty in this profile: a message signed over any other AAD fails here.
  if (!(await checked.verify(key.value.publicKey, coseSigStructure(protectedBytes, payload), signature))) {
    return refuse('cose_signature_invalid');
  }
  const envelope = parseEnvelope(payload);
  if (!envelope.ok) return envelope;
  if (envelopeKeyId(envelope.value) !== keyId) {
    return refuse('key_id_mismatch', 'the envelope is not signed by the kid key');
  }
  const document = await checkDocument(envelope.value, keyId, key.value.jwk);
  return document.ok ? { ok: true, value: { envelope: envelope.value, keyId } } : document;
}

const PROFILES = { shared_secret: verifySharedSecret, asymmetric: verifyAsymmetric, cose: verifyCose } as const;

export async function verifyWebhookDelivery(o: VerifyWebhookOptions): Promise<WebhookVerificationResult> {
  const checked = checkOptions(o);
  let read: ReturnType<typeof readWebhookHeaders>;
  try {
    read = readWebhookHeaders(o.headers);
  } catch {
    // Only hostile header objects (throwing getters, proxies) get here.
    return { valid: false, code: 'malformed_header', detail: 'headers' };
  }
  if (!read.ok) return read.result;
  const headers = read.headers;
  const facts = { webhook_id: headers.webhookId, timestamp: headers.timestamp };
  const content = webhookSignedContent(headers.webhookId, headers.timestamp, o.body);

  const step = await PROFILES[o.profile](o, checked, headers, content);
  if (!step.ok) {
    const failed: WebhookVerificationResult = { valid: false, code: step.code, ...facts };
    return step.detail === undefined ? failed : { ...failed, detail: step.detail };
  }
  const { envelope, keyId } = step.value;
  const authentic = keyId === undefined ? facts : { ...facts, key_id: keyId };

  if (envelope.schema_version !== WEBHOOK_ENVELOPE_VERSION) {
    return { valid: false, code: 'envelope_invalid', detail: 'schema_version is not ns.webhook.v1', ...authentic };
  }
  if (envelope.event_id !== headers.webhookId) {
    return { valid: false, code: 'envelope_id_mismatch', detail: 'event_id is not webhook-id', ...authentic };
  }
  if (o.now - headers.timestamp > checked.tolerance) return { valid: false, code: 'timestamp_stale', ...authentic };
  if (headers.timestamp - o.now > checked.tolerance) return { valid: false, code: 'timestamp_in_future', ...authentic };
  if (o.seenBefore !== undefined && (await o.seenBefore(headers.webhookId))) {
    return { valid: false, code: 'replayed', ...authentic };
  }
  return { valid: true, ...authentic, envelope };
}
