/**
 * The plain-library recipes of docs/webhooks.md "Verifying deliveries", run against our sender: an integrator who
 * uses only `standardwebhooks`, `node:crypto`, `canonicalize` and `cbor2` (no code of ours) accepts what we send
 * and refuses a tampered delivery. The functions below are the ones printed in the docs; keep them in step.
 */
import { createPublicKey, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { decode, encode, Tag } from 'cbor2';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signWebhookDelivery } from '../../src/webhooks/sign-webhook-delivery.ts';
import type { WebhookProfile } from '../../src/webhooks/webhook-profile.ts';
import type { TestKey } from './fixtures.ts';
import { envelope, NOW, OLD_SECRET, otherKey, testKey, WEBHOOK_ID } from './fixtures.ts';

type Headers = Record<string, string>;
interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid?: string;
}
type Envelope = Record<string, unknown> & { event_id: string; signature: { key_id: string; signature: string } };

// ---- docs/webhooks.md: asymmetric (v1a) with node:crypto ----
function trustedKey(jwks: { keys: Jwk[] }, keyId: string) {
  const jwk = jwks.keys.find((k) => k.kid === keyId && k.kty === 'OKP' && k.crv === 'Ed25519');
  if (!jwk) throw new Error(`unknown key ${keyId}`); // only keys from the service's JWKS, never from the message
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
}

function checkV1a(rawBody: Buffer, headers: Headers, key: ReturnType<typeof createPublicKey>, now: number) {
  const id = headers['webhook-id'] ?? '';
  const timestamp = headers['webhook-timestamp'] ?? '';
  if (!/^[0-9]+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > 300) throw new Error('stale or bad timestamp');
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), rawBody]);
  const ok = (headers['webhook-signature'] ?? '')
    .split(' ')
    .some((entry) => entry.startsWith('v1a,') && verify(null, signed, key, Buffer.from(entry.slice(4), 'base64')));
  if (!ok) throw new Error('no valid v1a signature');
}

function checkEnvelope(envelope: Envelope, webhookId: string, key: ReturnType<typeof createPublicKey>) {
  const { signature, ...unsigned } = envelope; // CONTRACT section 4: Ed25519 over RFC 8785 without `signature`
  const bytes = Buffer.from(canonicalize(unsigned) as string);
  if (!verify(null, bytes, key, Buffer.from(signature.signature, 'base64url')))
    throw new Error('bad envelope signature');
  if (envelope.event_id !== webhookId) throw new Error('event_id is not webhook-id');
}

function verifyAsymmetric(rawBody: Buffer, headers: Headers, jwks: { keys: Jwk[] }, now: number): Envelope {
  const envelope = JSON.parse(rawBody.toString('utf8')) as Envelope;
  const key = trustedKey(jwks, envelope.signature.key_id);
  checkV1a(rawBody, headers, key, now);
  checkEnvelope(envelope, headers['webhook-id'] ?? '', key);
  return envelope;
}

// ---- docs/webhooks.md: cose with cbor2 and node:crypto ----
function verifyCose(rawBody: Buffer, headers: Headers, jwks: { keys: Jwk[] }, now: number): Envelope {
  const strict = { rejectDuplicateKeys: true, rejectStreaming: true, preferMap: true, ignoreGlobalTags: true };
  const message = decode(new Uint8Array(rawBody), strict); // a plain Uint8Array: cbor2 re-encodes Buffers as maps
  if (!(message instanceof Tag) || message.tag !== 18) throw new Error('not a COSE_Sign1');
  const [protectedBytes, unprotected, payload, signature] = message.contents as [
    Uint8Array,
    Map<number, unknown>,
    Uint8Array,
    Uint8Array,
  ];
  const header = decode(protectedBytes, strict) as Map<number, unknown>;
  if (header.get(1) !== -8 || unprotected.has(1)) throw new Error('alg must be EdDSA, in the protected header');
  const key = trustedKey(jwks, new TextDecoder().decode(header.get(4) as Uint8Array));
  checkV1a(rawBody, headers, key, now);
  const toBeSigned = encode(['Signature1', protectedBytes, new Uint8Array(0), payload]);
  if (!verify(null, toBeSigned, key, signature)) throw new Error('bad COSE signature');
  const envelope = JSON.parse(Buffer.from(payload).toString('utf8')) as Envelope;
  checkEnvelope(envelope, headers['webhook-id'] ?? '', key);
  return envelope;
}
// ---- end of the docs recipes ----

let key: TestKey;
let other: TestKey;
beforeAll(async () => {
  key = await testKey();
  other = await otherKey();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW * 1000);
});
afterAll(() => vi.useRealTimers());

async function delivery(profile: WebhookProfile) {
  const d = await signWebhookDelivery({
    profile,
    webhookId: WEBHOOK_ID,
    timestamp: NOW,
    envelope: envelope(),
    signer: key.signer,
    ...(profile === 'shared_secret' ? { secrets: [OLD_SECRET] } : {}),
  });
  return { headers: d.headers, body: Buffer.from(d.body) };
}

function tamper(body: Buffer, at: number): Buffer {
  const copy = Buffer.from(body);
  copy[at] = (copy[at] as number) ^ 0x01;
  return copy;
}

describe('docs/webhooks.md plain-library recipes', () => {
  it('shared_secret with the standardwebhooks library', async () => {
    const d = await delivery('shared_secret');
    const verified = new Webhook(OLD_SECRET).verify(d.body, d.headers) as Envelope;
    expect(verified.event_id).toBe(WEBHOOK_ID);
    expect(() => new Webhook(OLD_SECRET).verify(tamper(d.body, 30), d.headers)).toThrow();
  });

  it('asymmetric with node:crypto and canonicalize', async () => {
    const d = await delivery('asymmetric');
    const jwks = { keys: [key.jwk, other.jwk] };
    expect(verifyAsymmetric(d.body, d.headers, jwks, NOW).event_id).toBe(WEBHOOK_ID);
    expect(() => verifyAsymmetric(tamper(d.body, 30), d.headers, jwks, NOW)).toThrow();
    expect(() => verifyAsymmetric(d.body, d.headers, jwks, NOW + 301)).toThrow('stale');
    expect(() => verifyAsymmetric(d.body, d.headers, { keys: [other.jwk] }, NOW)).toThrow('unknown key');
  });

  it('cose with cbor2 and node:crypto', async () => {
    const d = await delivery('cose');
    const jwks = { keys: [key.jwk, other.jwk] };
    expect(verifyCose(d.body, d.headers, jwks, NOW).event_id).toBe(WEBHOOK_ID);
    expect(() => verifyCose(tamper(d.body, d.body.length - 2), d.headers, jwks, NOW)).toThrow();
    expect(() => verifyCose(d.body, d.headers, { keys: [other.jwk] }, NOW)).toThrow('unknown key');
  });
});
