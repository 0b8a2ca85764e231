/**
 * Signs the worker's attempts (CONTRACT section 9) with as little of the event loop as it can, because the event
 * loop is also what makes the POSTs:
 * - FIRST CHOICE: the whole attempt (body and headers) is made on the attempt-signing thread
 *   (attempt-signing-thread.ts); this thread only hands the envelope over. What follows is the fallback, used when
 *   that thread cannot start or died, and for an attempt it refused (so the failure is thrown here as core throws it):
 * - the body (the envelope signed per section 4 as RFC 8785 bytes, wrapped in COSE_Sign1 for cose) depends only on
 *   the event, the profile and the service key, never on the attempt: it is made once and kept (bounded, least
 *   recently used out), so retries, replays and every endpoint of a profile reuse the same bytes;
 * - Ed25519 runs on a signing thread, in batches (signing-thread.ts), so the attempts after the one in flight are
 *   signed meanwhile (the worker signs a few ahead) on the other core;
 * - HMAC-SHA256 is node:crypto's, synchronous (~3 µs), with each secret decoded and imported once.
 * INVARIANT: what `sign` returns is byte for byte what core's `signWebhookDelivery` returns for the same endpoint,
 * envelope and time (test/api/webhook-delivery-signer.test.ts); only where the work is done differs.
 * Secrets stay in this process's memory only, where the endpoint rows already hold them; nothing here is logged.
 */
import {
  signWebhookAttempt,
  type DocumentSigner,
  type SignedWebhookDelivery,
  type WebhookDeliveryBody,
} from '@aar/core';
import type { KeyRing, ServiceSigner } from '../../keys/key-ring.ts';
import type { UnsignedEventEnvelope } from '../events/append-event.ts';
import { envelopeBody } from './delivery-envelope.ts';
import { signingSecretsOf, type WebhookEndpointRow } from './endpoint-view.ts';
import {
  BODY_CACHE_ENTRIES,
  ItemRefusedError,
  sharedAttemptSigningThread,
  ThreadUnavailableError,
  type AttemptSigningThread,
} from './attempt-signing-thread.ts';
import { bodyKey, LruMap, MacKeys } from './signing-caches.ts';
import { sharedSigningThread, type SigningThread } from './signing-thread.ts';

export interface SignedAttempt extends SignedWebhookDelivery {
  /** the `webhook-timestamp` signed, unix seconds */
  timestamp: number;
}

export class DeliverySigner {
  readonly #keys: KeyRing;
  readonly #bodies: LruMap<Promise<WebhookDeliveryBody>>;
  readonly #macKeys = new MacKeys();
  readonly #thread: SigningThread;
  readonly #attempts: AttemptSigningThread | null;

  /**
   * `thread`: the process's shared signing thread unless a test gives its own; `attempts`: the process's shared
   * attempt-signing thread unless a test gives its own, or null to sign every attempt on this thread
   */
  constructor(
    keys: KeyRing,
    maxBodies = BODY_CACHE_ENTRIES,
    thread: SigningThread = sharedSigningThread(),
    attempts: AttemptSigningThread | null = sharedAttemptSigningThread(),
  ) {
    this.#keys = keys;
    this.#bodies = new LruMap(maxBodies);
    this.#thread = thread;
    this.#attempts = attempts;
  }

  /** How many bodies are kept now (tests). */
  get cachedBodies(): number {
    return this.#bodies.size;
  }

  /** The attempt's body and headers, signed at `now` with the current service key (and the endpoint's secrets). */
  async sign(endpoint: WebhookEndpointRow, envelope: UnsignedEventEnvelope, now: Date): Promise<SignedAttempt> {
    const current = this.#keys.current();
    const timestamp = Math.floor(now.getTime() / 1000);
    const secrets = endpoint.profile === 'shared_secret' ? signingSecretsOf(endpoint, now) : undefined;
    if (this.#attempts?.available) {
      try {
        const item = { profile: endpoint.profile, webhookId: envelope.event_id, timestamp, envelope, secrets };
        return { ...(await this.#attempts.sign(current, item)), timestamp };
      } catch (error) {
        if (!(error instanceof ThreadUnavailableError || error instanceof ItemRefusedError)) throw error;
      }
    }
    const signer = this.#signerOf(current);
    const input = {
      profile: endpoint.profile,
      webhookId: envelope.event_id,
      timestamp,
      envelope,
      signer,
      ...(secrets ? { secrets, mac: this.#macKeys.mac } : {}),
    };
    const body = await this.#body(endpoint.profile, envelope, signer);
    return { ...(await signWebhookAttempt(input, body)), timestamp };
  }

  /**
   * The body alone (the delivery thread signs the attempts itself), signed with `current` (the key the round's
   * attempts are signed with), or the current key.
   */
  body(
    profile: WebhookEndpointRow['profile'],
    envelope: UnsignedEventEnvelope,
    current: ServiceSigner = this.#keys.current(),
  ): Promise<WebhookDeliveryBody> {
    return this.#body(profile, envelope, this.#signerOf(current));
  }

  #signerOf(current: ServiceSigner): DocumentSigner {
    return { keyId: current.keyId, sign: (message) => this.#thread.sign(current, message) };
  }

  #body(
    profile: WebhookEndpointRow['profile'],
    envelope: UnsignedEventEnvelope,
    signer: DocumentSigner,
  ): Promise<WebhookDeliveryBody> {
    const key = bodyKey(profile, signer.keyId, envelope.event_id);
    const known = this.#bodies.get(key);
    if (known) return known;
    const made = envelopeBody(profile, envelope, signer);
    this.#bodies.set(key, made);
    made.catch(() => this.#bodies.delete(key));
    return made;
  }
}
