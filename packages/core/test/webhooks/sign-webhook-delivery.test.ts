/** The sender: what each profile puts on the wire, and the inputs only a bug produces. */
import { describe, expect, it } from 'vitest';
import { AarError } from '../../src/errors/aar-error.ts';
import { canonicalBytes } from '../../src/json/canonical-json.ts';
import { signDocument } from '../../src/signing/sign-document.ts';
import type { WebhookDeliveryInput } from '../../src/webhooks/sign-webhook-delivery.ts';
import { signWebhookDelivery } from '../../src/webhooks/sign-webhook-delivery.ts';
import { parseWebhookSignatureHeader } from '../../src/webhooks/webhook-signature-header.ts';
import { envelope, NEW_SECRET, NOW, OLD_SECRET, testKey, THIRD_SECRET, WEBHOOK_ID } from './fixtures.ts';

const base = (extra: Partial<WebhookDeliveryInput>): WebhookDeliveryInput => ({
  profile: 'shared_secret',
  webhookId: WEBHOOK_ID,
  timestamp: NOW,
  envelope: envelope(),
  ...extra,
});

async function code(input: WebhookDeliveryInput): Promise<string | undefined> {
  try {
    await signWebhookDelivery(input);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AarError);
    return (error as AarError).code;
  }
}

describe('signWebhookDelivery', () => {
  it('shared_secret: the envelope as given, one v1 per secret, no key hint', async () => {
    const delivery = await signWebhookDelivery(base({ secrets: [OLD_SECRET, NEW_SECRET] }));
    expect(delivery.contentType).toBe('application/json');
    expect(delivery.body).toEqual(canonicalBytes(envelope()));
    expect(Object.keys(delivery.headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(delivery.headers['webhook-id']).toBe(WEBHOOK_ID);
    expect(delivery.headers['webhook-timestamp']).toBe(String(NOW));
    const entries = parseWebhookSignatureHeader([delivery.headers['webhook-signature'] as string]);
    expect(entries?.map((e) => e.version)).toEqual(['v1', 'v1']);
    expect(entries?.[0]?.signature).not.toEqual(entries?.[1]?.signature);
  });

  it('shared_secret with a signer: the body is the signed envelope (CONTRACT section 4)', async () => {
    const key = await testKey();
    const delivery = await signWebhookDelivery(base({ secrets: [OLD_SECRET], signer: key.signer }));
    expect(delivery.body).toEqual(canonicalBytes(await signDocument(envelope(), key.signer)));
    expect(delivery.headers['webhook-key-id']).toBeUndefined();
  });

  it('asymmetric: the signed envelope, one v1a, the key hint', async () => {
    const key = await testKey();
    const delivery = await signWebhookDelivery(base({ profile: 'asymmetric', signer: key.signer }));
    expect(delivery.contentType).toBe('application/json');
    expect(delivery.body).toEqual(canonicalBytes(await signDocument(envelope(), key.signer)));
    expect(delivery.headers['webhook-key-id']).toBe(key.keyId);
    expect(
      parseWebhookSignatureHeader([delivery.headers['webhook-signature'] as string])?.map((e) => e.version),
    ).toEqual(['v1a']);
  });

  it('is deterministic for one attempt and re-signs for a retry at another time', async () => {
    const key = await testKey();
    const first = await signWebhookDelivery(base({ profile: 'cose', signer: key.signer }));
    const again = await signWebhookDelivery(base({ profile: 'cose', signer: key.signer }));
    const retry = await signWebhookDelivery(base({ profile: 'cose', signer: key.signer, timestamp: NOW + 5 }));
    expect(again).toEqual(first);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
  });

  it('refuses inputs only a bug produces', async () => {
    const key = await testKey();
    expect(await code(base({}))).toBe('internal'); // no secret
    expect(await code(base({ secrets: [] }))).toBe('internal');
    expect(await code(base({ secrets: [OLD_SECRET, NEW_SECRET, THIRD_SECRET] }))).toBe('internal');
    expect(await code(base({ secrets: ['not-a-secret'] }))).toBe('invalid_request');
    expect(await code(base({ profile: 'asymmetric' }))).toBe('internal'); // no signer
    expect(await code(base({ profile: 'cose' }))).toBe('internal');
    expect(await code(base({ profile: 'jws' as never, signer: key.signer }))).toBe('internal');
    expect(await code(base({ secrets: [OLD_SECRET], webhookId: 'ns:event:other' }))).toBe('internal');
    expect(await code(base({ secrets: [OLD_SECRET], webhookId: 'a.b', envelope: { event_id: 'a.b' } }))).toBe(
      'internal',
    );
    for (const timestamp of [-1, 1.5, NOW * 1e6, Number.NaN]) {
      expect(await code(base({ secrets: [OLD_SECRET], timestamp }))).toBe('internal');
    }
    expect(await code(base({ profile: 'asymmetric', signer: key.as('../x') }))).toBe('internal');
    expect(await code(base({ secrets: [OLD_SECRET], envelope: { ...envelope(), amount: Number.NaN } }))).toBe(
      'invalid_json',
    );
    const short = { keyId: key.keyId, sign: async () => new Uint8Array(63) };
    expect(await code(base({ profile: 'asymmetric', signer: short }))).toBe('internal');
  });
});
