/**
 * The shared_secret profile against the reference `standardwebhooks` library (an implementation we did not write):
 * what we sign verifies with `new Webhook(secret).verify(...)`, what the library signs verifies with ours, and the
 * library's own published test vector comes out byte-for-byte from our signer's primitives.
 */
import { readFileSync } from 'node:fs';
import { sharedVectorPath } from '../../../../vectors/lib/shared-vectors.ts';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { utf8Encode } from '../../src/encoding/utf8.ts';
import { canonicalBytes } from '../../src/json/canonical-json.ts';
import { hmacSha256 } from '../../src/webhooks/hmac-sha256.ts';
import { signWebhookDelivery } from '../../src/webhooks/sign-webhook-delivery.ts';
import { webhookSignedContent } from '../../src/webhooks/signed-content.ts';
import { verifyWebhookDelivery } from '../../src/webhooks/verify-webhook-delivery.ts';
import { parseWebhookSecret } from '../../src/webhooks/webhook-secret.ts';
import { formatWebhookSignatureHeader } from '../../src/webhooks/webhook-signature-header.ts';
import { envelope, NEW_SECRET, NOW, OLD_SECRET, testKey, THIRD_SECRET, WEBHOOK_ID } from './fixtures.ts';

// the standard-webhooks library's published test vector, read from ../shared/vectors (never copied into the project)
const UPSTREAM = sharedVectorPath('webhooks', 'standard-webhooks.json');

interface UpstreamCase {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
  signature: string;
}

// The library reads the wall clock; pin it to the fixtures' time.
beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW * 1000);
});
afterAll(() => vi.useRealTimers());

describe('shared_secret against the standardwebhooks library', () => {
  it.skipIf(!UPSTREAM)('reproduces the library test vector byte for byte', async () => {
    const file = JSON.parse(readFileSync(UPSTREAM!, 'utf8')) as { cases: UpstreamCase[] };
    expect(file.cases.length).toBeGreaterThan(0);
    for (const c of file.cases) {
      const mac = await hmacSha256(
        parseWebhookSecret(c.secret),
        webhookSignedContent(c.id, c.timestamp, utf8Encode(c.body)),
      );
      expect(formatWebhookSignatureHeader([{ version: 'v1', signature: mac }])).toBe(c.signature);
      // Our verifier accepts the signature (and only then refuses the body: it is no ns.webhook.v1 envelope).
      const result = await verifyWebhookDelivery({
        profile: 'shared_secret',
        headers: { 'webhook-id': c.id, 'webhook-timestamp': String(c.timestamp), 'webhook-signature': c.signature },
        body: utf8Encode(c.body),
        now: c.timestamp,
        secrets: [c.secret],
      });
      expect(result.code).toBe('envelope_invalid');
    }
  });

  it('what we sign verifies with the library, with one secret and with either of two during rotation', async () => {
    const key = await testKey();
    for (const secrets of [[OLD_SECRET], [OLD_SECRET, NEW_SECRET]]) {
      const delivery = await signWebhookDelivery({
        profile: 'shared_secret',
        webhookId: WEBHOOK_ID,
        timestamp: NOW,
        envelope: envelope(),
        secrets,
        signer: key.signer,
      });
      for (const secret of secrets) {
        const parsed = new Webhook(secret).verify(Buffer.from(delivery.body), delivery.headers) as Record<
          string,
          unknown
        >;
        expect(parsed.event_id).toBe(WEBHOOK_ID);
        expect(parsed.signature).toMatchObject({ key_id: key.keyId });
      }
      expect(() => new Webhook(THIRD_SECRET).verify(Buffer.from(delivery.body), delivery.headers)).toThrow(
        'No matching signature found',
      );
    }
  });

  it('what the library signs verifies with ours; a flipped byte or the wrong secret does not', async () => {
    const body = canonicalBytes(envelope());
    const signature = new Webhook(NEW_SECRET).sign(WEBHOOK_ID, new Date(NOW * 1000), Buffer.from(body));
    const headers = { 'webhook-id': WEBHOOK_ID, 'webhook-timestamp': String(NOW), 'webhook-signature': signature };
    const ok = await verifyWebhookDelivery({
      profile: 'shared_secret',
      headers,
      body,
      now: NOW,
      secrets: [NEW_SECRET],
    });
    expect(ok).toMatchObject({ valid: true, webhook_id: WEBHOOK_ID, timestamp: NOW });
    expect(ok.envelope).toEqual(envelope());

    const flipped = new Uint8Array(body);
    flipped[5] = (flipped[5] as number) ^ 0x20;
    const bad = await verifyWebhookDelivery({
      profile: 'shared_secret',
      headers,
      body: flipped,
      now: NOW,
      secrets: [NEW_SECRET],
    });
    expect(bad.code).toBe('signature_invalid');
    const other = await verifyWebhookDelivery({
      profile: 'shared_secret',
      headers,
      body,
      now: NOW,
      secrets: [THIRD_SECRET],
    });
    expect(other.code).toBe('signature_invalid');
  });

  it('agrees with the library on the freshness boundary (300 s either way, inclusive)', async () => {
    const body = canonicalBytes(envelope());
    for (const [timestamp, accepted] of [
      [NOW - 300, true],
      [NOW + 300, true],
      [NOW - 301, false],
      [NOW + 301, false],
    ] as const) {
      const delivery = await signWebhookDelivery({
        profile: 'shared_secret',
        webhookId: WEBHOOK_ID,
        timestamp,
        envelope: envelope(),
        secrets: [OLD_SECRET],
      });
      expect(delivery.body).toEqual(body);
      const library = (() => {
        try {
          new Webhook(OLD_SECRET).verify(Buffer.from(delivery.body), delivery.headers);
          return true;
        } catch {
          return false;
        }
      })();
      const ours = await verifyWebhookDelivery({
        profile: 'shared_secret',
        headers: delivery.headers,
        body,
        now: NOW,
        secrets: [OLD_SECRET],
      });
      expect(library).toBe(accepted);
      expect(ours.valid).toBe(accepted);
    }
  });
});
