/**
 * The two caches every webhook signer keeps, wherever it runs (delivery-signer.ts on the event loop,
 * attempt-signing-worker.ts on its thread), so both keep them by the same rules:
 * - bodies, by `bodyKey`: a body depends only on the event, the profile and the service key, never on the attempt,
 *   so retries, replays and other endpoints reuse it; bounded, least recently used out;
 * - HMAC keys, one per webhook secret, decoded and imported once (cleared whole when full: secrets are few).
 * Secrets stay in the memory of the thread that holds the cache; nothing here is logged.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { parseWebhookSecret, type WebhookMac, type WebhookProfile } from '@aar/core';

const MAC_KEY_CACHE_ENTRIES = 1_024;

/** The cache key of a body. The service key id is part of it: after a rotation, bodies are signed afresh. */
export function bodyKey(profile: WebhookProfile, keyId: string, eventId: string): string {
  return `${profile} ${keyId} ${eventId}`;
}

/** A map of at most `max` entries: `get` refreshes an entry, `set` drops the least recently used past `max`. */
export class LruMap<V> {
  readonly #max: number;
  readonly #entries = new Map<string, V>();

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.#entries.set(key, value);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

/** HMAC-SHA256 with each webhook secret's key imported once: `mac` is what core's signWebhookAttempt takes. */
export class MacKeys {
  readonly #keys = new Map<string, KeyObject>();

  readonly mac: WebhookMac = (secret, content) =>
    new Uint8Array(createHmac('sha256', this.#keyOf(secret)).update(content).digest());

  #keyOf(secret: string): KeyObject {
    let key = this.#keys.get(secret);
    if (!key) {
      key = createSecretKey(parseWebhookSecret(secret));
      if (this.#keys.size >= MAC_KEY_CACHE_ENTRIES) this.#keys.clear();
      this.#keys.set(secret, key);
    }
    return key;
  }
}
