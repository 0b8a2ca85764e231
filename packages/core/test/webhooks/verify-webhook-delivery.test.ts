/**
 * The receiver beyond what the vectors hold: header spellings, when the replay cache and the key resolver are
 * consulted, options that only a bug produces, and the RFC 9052 empty-protected-header rule.
 */
import { createPrivateKey, sign as nodeSign } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { AarError } from '../../src/errors/aar-error.ts';
import type { Ed25519PublicJwk } from '../../src/signing/ed25519-jwk.ts';
import { coseSigStructure } from '../../src/webhooks/cose-sign1.ts';
import { decodeCoseSign1 } from '../../src/webhooks/decode-cose-sign1.ts';
import type { SignedWebhookDelivery } from '../../src/webhooks/sign-webhook-delivery.ts';
import { signWebhookDelivery } from '../../src/webhooks/sign-webhook-delivery.ts';
import type { VerifyWebhookOptions } from '../../src/webhooks/verify-webhook-delivery.ts';
import { verifyWebhookDelivery } from '../../src/webhooks/verify-webhook-delivery.ts';
import type { WebhookProfile } from '../../src/webhooks/webhook-profile.ts';
import type { TestKey } from './fixtures.ts';
import {
  coseFrom,
  envelope,
  NOW,
  OLD_SECRET,
  otherKey,
  protectedMap,
  TEST_1_SEED,
  testKey,
  WEBHOOK_ID,
} from './fixtures.ts';

let key: TestKey;
let other: TestKey;
const deliveries = {} as Record<WebhookProfile, SignedWebhookDelivery>;

beforeAll(async () => {
  key = await testKey();
  other = await otherKey();
  for (const profile of ['shared_secret', 'asymmetric', 'cose'] as const) {
    deliveries[profile] = await signWebhookDelivery({
      profile,
      webhookId: WEBHOOK_ID,
      timestamp: NOW,
      envelope: envelope(),
      signer: key.signer,
      ...(profile === 'shared_secret' ? { secrets: [OLD_SECRET] } : {}),
    });
  }
});

const resolveOurs = (kid: string): Ed25519PublicJwk | undefined => (kid === key.keyId ? key.jwk : undefined);

function options(profile: WebhookProfile, extra: Partial<VerifyWebhookOptions> = {}): VerifyWebhookOptions {
  const d = deliveries[profile];
  return {
    profile,
    headers: d.headers,
    body: d.body,
    now: NOW,
    ...(profile === 'shared_secret' ? { secrets: [OLD_SECRET] } : { resolveKey: resolveOurs }),
    ...extra,
  };
}

describe('verifyWebhookDelivery', () => {
  it('reads header names case-insensitively, from plain objects, arrays or WHATWG Headers', async () => {
    for (const profile of ['shared_secret', 'asymmetric', 'cose'] as const) {
      const h = deliveries[profile].headers;
      const upper = Object.fromEntries(
        Object.entries(h).map(([k, v]) => [k.replace(/(^|-)\w/g, (c) => c.toUpperCase()), v]),
      );
      expect((await verifyWebhookDelivery(options(profile, { headers: upper }))).valid).toBe(true);
      expect((await verifyWebhookDelivery(options(profile, { headers: new Headers(h) }))).valid).toBe(true);
      const asArray = { ...h, 'webhook-signature': [h['webhook-signature'] as string] };
      expect((await verifyWebhookDelivery(options(profile, { headers: asArray }))).valid).toBe(true);
    }
  });

  it('refuses a repeated id or timestamp header, and more than eight signatures', async () => {
    const h = deliveries.shared_secret.headers;
    const twice = { ...h, 'webhook-id': [WEBHOOK_ID, WEBHOOK_ID] };
    expect((await verifyWebhookDelivery(options('shared_secret', { headers: twice }))).code).toBe('malformed_header');
    const mixedCase = { ...h, 'Webhook-Timestamp': String(NOW) };
    expect((await verifyWebhookDelivery(options('shared_secret', { headers: mixedCase }))).code).toBe(
      'malformed_header',
    );
    const many = { ...h, 'webhook-signature': Array(9).fill(h['webhook-signature']).join(' ') };
    expect((await verifyWebhookDelivery(options('shared_secret', { headers: many }))).code).toBe('malformed_header');
    // two secrets' signatures on two header lines are one list
    const split = { ...h, 'webhook-signature': ['v1,' + btoa('x'.repeat(32)), h['webhook-signature'] as string] };
    expect((await verifyWebhookDelivery(options('shared_secret', { headers: split }))).valid).toBe(true);
  });

  it('asks the replay cache only about authentic, fresh deliveries', async () => {
    for (const profile of ['shared_secret', 'asymmetric', 'cose'] as const) {
      const asked: string[] = [];
      const seenBefore = (id: string) => {
        asked.push(id);
        return false;
      };
      const flipped = new Uint8Array(deliveries[profile].body);
      flipped[flipped.length - 3] = (flipped[flipped.length - 3] as number) ^ 1;
      expect((await verifyWebhookDelivery(options(profile, { body: flipped, seenBefore }))).valid).toBe(false);
      expect((await verifyWebhookDelivery(options(profile, { now: NOW + 301, seenBefore }))).code).toBe(
        'timestamp_stale',
      );
      expect(asked).toEqual([]);
      expect((await verifyWebhookDelivery(options(profile, { seenBefore }))).valid).toBe(true);
      expect(asked).toEqual([WEBHOOK_ID]);
      const replay = await verifyWebhookDelivery(options(profile, { seenBefore: async () => true }));
      expect(replay).toMatchObject({ valid: false, code: 'replayed', webhook_id: WEBHOOK_ID });
    }
  });

  it('takes the tolerance from the options', async () => {
    expect((await verifyWebhookDelivery(options('cose', { now: NOW + 30, toleranceSeconds: 29 }))).code).toBe(
      'timestamp_stale',
    );
    expect((await verifyWebhookDelivery(options('cose', { now: NOW + 30, toleranceSeconds: 30 }))).valid).toBe(true);
  });

  it('refuses a resolver answer for another kid, and lets a failing resolver or replay cache throw', async () => {
    const liar = () => other.jwk; // kid rfc8032-test-2 asked for rfc8032-test-1
    expect((await verifyWebhookDelivery(options('asymmetric', { resolveKey: liar }))).code).toBe('invalid_key');
    const anonymous = () => ({ ...other.jwk, kid: undefined }) as unknown as Ed25519PublicJwk;
    expect((await verifyWebhookDelivery(options('cose', { resolveKey: anonymous }))).code).toBe('signature_invalid');
    const down = () => Promise.reject(new Error('jwks store down'));
    await expect(verifyWebhookDelivery(options('cose', { resolveKey: down }))).rejects.toThrow('jwks store down');
    const cacheDown = () => Promise.reject(new Error('cache down'));
    await expect(verifyWebhookDelivery(options('shared_secret', { seenBefore: cacheDown }))).rejects.toThrow(
      'cache down',
    );
  });

  it('shared_secret with the JWKS also checks the envelope signature', async () => {
    expect(await verifyWebhookDelivery(options('shared_secret', { resolveKey: resolveOurs }))).toMatchObject({
      valid: true,
      key_id: key.keyId,
    });
    const unsigned = await signWebhookDelivery({
      profile: 'shared_secret',
      webhookId: WEBHOOK_ID,
      timestamp: NOW,
      envelope: envelope(),
      secrets: [OLD_SECRET],
    });
    const withJwks = options('shared_secret', {
      headers: unsigned.headers,
      body: unsigned.body,
      resolveKey: resolveOurs,
    });
    expect(await verifyWebhookDelivery(withJwks)).toMatchObject({ valid: false, code: 'document_signature_invalid' });
    expect((await verifyWebhookDelivery({ ...withJwks, resolveKey: undefined })).valid).toBe(true);
  });

  it('throws internal for options only a bug produces', async () => {
    const bad: Array<Partial<VerifyWebhookOptions>> = [
      { profile: 'jws' as never },
      { secrets: [] },
      { secrets: undefined },
      { now: Number.NaN },
      { now: -1 },
      { toleranceSeconds: 1.5 },
      { body: 'text' as never },
    ];
    for (const extra of bad) {
      await expect(verifyWebhookDelivery(options('shared_secret', extra))).rejects.toBeInstanceOf(AarError);
    }
    await expect(verifyWebhookDelivery(options('cose', { resolveKey: undefined }))).rejects.toMatchObject({
      code: 'internal',
    });
    await expect(verifyWebhookDelivery(options('shared_secret', { secrets: ['whsec_short'] }))).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});

describe('Node Buffers', () => {
  it('verify as bodies, and sign when a Node signer returns them (cbor2 would encode a Buffer as a map)', async () => {
    const privateKey = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(TEST_1_SEED, 'hex')]),
      format: 'der',
      type: 'pkcs8',
    });
    const nodeSigner = { keyId: key.keyId, sign: async (m: Uint8Array) => nodeSign(null, m, privateKey) };
    const fromNode = await signWebhookDelivery({
      profile: 'cose',
      webhookId: WEBHOOK_ID,
      timestamp: NOW,
      envelope: envelope(),
      signer: nodeSigner,
    });
    expect(fromNode.body).toEqual(deliveries.cose.body);
    for (const profile of ['shared_secret', 'asymmetric', 'cose'] as const) {
      const body = Buffer.from(deliveries[profile].body);
      expect(await verifyWebhookDelivery(options(profile, { body }))).toMatchObject({ valid: true });
    }
  });
});

describe('decodeCoseSign1: the empty protected bucket (RFC 9052 section 3)', () => {
  it("accepts h'' and h'a0' as an empty map and keeps the bytes received for the Sig_structure", async () => {
    const payload = new TextEncoder().encode('{}');
    const unprotected = new Map<number, unknown>([[4, new TextEncoder().encode(key.keyId)]]);
    for (const protectedBytes of [new Uint8Array(0), Uint8Array.of(0xa0)]) {
      const decoded = decodeCoseSign1(await coseFrom(key.signer, { protectedBytes, unprotected, payload }));
      if (!decoded.ok) throw new Error(decoded.detail);
      expect(decoded.message.protectedHeader.size).toBe(0);
      expect(decoded.message.protectedBytes).toEqual(protectedBytes);
    }
    // The two spellings are different signed bytes: a signature over one never verifies as the other.
    expect(coseSigStructure(new Uint8Array(0), payload)).not.toEqual(coseSigStructure(Uint8Array.of(0xa0), payload));
  });

  it('refuses a protected bucket that is not one map, and labels that are neither int nor text', async () => {
    const payload = new TextEncoder().encode('{}');
    for (const protectedBytes of [
      Uint8Array.of(0x80), // an array
      Uint8Array.of(0xa0, 0xa0), // two maps
      protectedMap([[new Uint8Array([1]) as never, -8]]), // a bstr label
    ]) {
      const decoded = decodeCoseSign1(await coseFrom(key.signer, { protectedBytes, payload }));
      expect(decoded).toMatchObject({ ok: false, failure: 'cose_malformed' });
    }
    expect(decodeCoseSign1(new Uint8Array(0))).toMatchObject({ ok: false, failure: 'cose_malformed' });
  });
});
