/**
 * The worker's signer (delivery-signer.ts) moves work (whole attempts to the attempt-signing thread; when that is
 * not there, Ed25519 to the signing thread with bodies cached here and HMAC through node:crypto) but must send
 * exactly what core's signWebhookDelivery defines: same body bytes, same headers, for every profile, rotated secrets
 * and rotated service keys included, whichever thread did the work.
 */
import { signWebhookDelivery, verifyWebhookDelivery, type WebhookProfile } from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnsignedEventEnvelope } from '../../src/services/events/append-event.ts';
import { AttemptSigningThread } from '../../src/services/webhooks/attempt-signing-thread.ts';
import { DeliverySigner } from '../../src/services/webhooks/delivery-signer.ts';
import { sharedSigningThread } from '../../src/services/webhooks/signing-thread.ts';
import type { WebhookEndpointRow } from '../../src/services/webhooks/endpoint-view.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

let rt: TestRuntime;
/** this file's own attempt-signing thread, small cache (2 bodies) so its bound can be seen */
const thread = new AttemptSigningThread({ maxBodies: 2 });
const NOW = new Date('2026-11-24T02:00:00.000Z');
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;

function endpoint(profile: WebhookProfile, extra: Partial<WebhookEndpointRow> = {}): WebhookEndpointRow {
  return {
    seq: 1,
    endpoint_id: 'ns:webhook_endpoint:test',
    url: 'https://receiver.example/hook',
    profile,
    event_types: null,
    description: null,
    connector_id: null,
    state: 'enabled',
    disabled_reason: null,
    secret: profile === 'shared_secret' ? SECRET : null,
    previous_secret: null,
    previous_secret_until: null,
    cursor_seq: 0,
    failing_since: null,
    lease_owner: null,
    lease_until: null,
    created_at: NOW.toISOString(),
    updated_at: NOW.toISOString(),
    ...extra,
  };
}

function envelope(n: number): UnsignedEventEnvelope {
  return {
    schema_version: 'ns.webhook.v1',
    event_id: `ns:event:0195c0de-aaaa-7bbb-8ccc-${String(n).padStart(12, '0')}`,
    event_type: 'ns.merchant.created',
    occurred_at: '2026-11-24T01:59:59.000Z',
    actor_entity_id: null,
    principal_entity_id: null,
    subject_ref: `m-${n}`,
    reason_code: 'merchant_created',
    data: { merchant_id: `m-${n}`, display_name: 'Grocer «Ü»', category: '5411', jurisdiction: 'DE' },
    audit_ref: 'ns:audit:1',
    evidence_refs: [],
    delivery: { idempotency_key: `ns:event:${n}`, replayable: true },
  };
}

/** What core defines for the attempt, signed in-thread with the current key. */
function reference(row: WebhookEndpointRow, env: UnsignedEventEnvelope, now: Date, secrets?: string[]) {
  return signWebhookDelivery({
    profile: row.profile,
    webhookId: env.event_id,
    timestamp: Math.floor(now.getTime() / 1000),
    envelope: env,
    signer: rt.ctx.keys.current(),
    ...(row.profile === 'shared_secret' ? { secrets: secrets ?? [SECRET] } : {}),
  });
}

beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => {
  await thread.close();
  await rt?.close();
});

const MODES = [
  {
    mode: 'on the attempt-signing thread',
    signerOf: (maxBodies?: number) => new DeliverySigner(rt.ctx.keys, maxBodies, sharedSigningThread(), thread),
  },
  {
    mode: 'on the main thread (the fallback)',
    signerOf: (maxBodies?: number) => new DeliverySigner(rt.ctx.keys, maxBodies, sharedSigningThread(), null),
  },
];

describe.each(MODES)('DeliverySigner $mode', ({ mode, signerOf }) => {
  const onThread = mode.startsWith('on the attempt');
  it.each(['shared_secret', 'asymmetric', 'cose'] as const)('%s: byte for byte what core signs', async (profile) => {
    const signer = signerOf();
    const row = endpoint(profile);
    const env = envelope(1);
    const signedBefore = thread.signed;
    const got = await signer.sign(row, env, NOW);
    // the mode is the one named: the thread made it, or it did not
    expect(thread.signed - signedBefore).toBe(onThread ? 1 : 0);
    const want = await reference(row, env, NOW);
    expect(Buffer.from(got.body).equals(Buffer.from(want.body))).toBe(true);
    expect(got.headers).toEqual(want.headers);
    expect(got.contentType).toBe(want.contentType);
    expect(got.timestamp).toBe(Math.floor(NOW.getTime() / 1000));
  });

  it('shared_secret during a rotation signs with both secrets, like core', async () => {
    const signer = signerOf();
    const row = endpoint('shared_secret', {
      previous_secret: OLD_SECRET,
      previous_secret_until: new Date(NOW.getTime() + 3_600_000).toISOString(),
    });
    const got = await signer.sign(row, envelope(2), NOW);
    const want = await reference(row, envelope(2), NOW, [SECRET, OLD_SECRET]);
    expect(got.headers['webhook-signature']).toBe(want.headers['webhook-signature']);
    expect(got.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    // once the overlap is over, only the current secret signs
    const later = new Date(NOW.getTime() + 7_200_000);
    const after = await signer.sign(row, envelope(2), later);
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(after.headers['webhook-signature']).toBe(
      (await reference(row, envelope(2), later)).headers['webhook-signature'],
    );
  });

  it('a retry reuses the body and gets fresh headers that verify at its own time', async () => {
    const signer = signerOf();
    const row = endpoint('asymmetric');
    const first = await signer.sign(row, envelope(3), NOW);
    const later = new Date(NOW.getTime() + 300_000);
    const retry = await signer.sign(row, envelope(3), later);
    // the same bytes, not re-signed (on the thread: the body came from its cache)
    if (onThread) expect(Buffer.from(retry.body).equals(Buffer.from(first.body))).toBe(true);
    else expect(retry.body).toBe(first.body);
    expect(retry.headers['webhook-timestamp']).toBe(String(Math.floor(later.getTime() / 1000)));
    expect(retry.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
    expect(retry.headers).toEqual((await reference(row, envelope(3), later)).headers);
    const { keys } = await rt.ctx.keys.jwks();
    const verified = await verifyWebhookDelivery({
      profile: 'asymmetric',
      headers: retry.headers,
      body: retry.body,
      now: Math.floor(later.getTime() / 1000),
      resolveKey: (kid) => keys.find((k) => k.kid === kid),
    });
    expect(verified).toMatchObject({ valid: true, webhook_id: envelope(3).event_id });
  });

  it('keeps at most its bound of bodies, least recently used out', async () => {
    const signer = signerOf(2);
    const row = endpoint('asymmetric');
    const madeBefore = thread.bodiesMade;
    const a = await signer.sign(row, envelope(10), NOW);
    await signer.sign(row, envelope(11), NOW);
    await signer.sign(row, envelope(10), NOW); // 10 is now the most recent
    await signer.sign(row, envelope(12), NOW); // 11 goes
    const again = await signer.sign(row, envelope(10), NOW);
    if (onThread) {
      expect(thread.bodiesMade - madeBefore).toBe(3); // 10, 11, 12; 10 twice from the cache
      await signer.sign(row, envelope(11), NOW); // gone: signed again
      expect(thread.bodiesMade - madeBefore).toBe(4);
      expect(Buffer.from(again.body).equals(Buffer.from(a.body))).toBe(true);
    } else {
      expect(signer.cachedBodies).toBe(2);
      expect(again.body).toBe(a.body);
    }
  });

  it('after a key rotation, bodies and headers are signed by the new key', async () => {
    const signer = signerOf();
    const row = endpoint('asymmetric');
    const before = await signer.sign(row, envelope(20), NOW);
    const { retired, current } = await rt.ctx.keys.rotate();
    const after = await signer.sign(row, envelope(20), NOW);
    expect(before.headers['webhook-key-id']).toBe(retired);
    expect(after.headers['webhook-key-id']).toBe(current);
    const doc = JSON.parse(Buffer.from(after.body).toString('utf8')) as { signature: { key_id: string } };
    expect(doc.signature.key_id).toBe(current);
    expect(Buffer.from(after.body).equals(Buffer.from((await reference(row, envelope(20), NOW)).body))).toBe(true);
  });

  it('refuses a malformed secret without echoing it', async () => {
    const signer = signerOf();
    const row = endpoint('shared_secret', { secret: 'whsec_not-base64!!' });
    const error = await signer.sign(row, envelope(30), NOW).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).not.toContain('not-base64');
  });
});

describe('DeliverySigner when the attempt-signing thread cannot start', () => {
  it('signs every attempt on the main thread instead, byte for byte the same, and stops asking the thread', async () => {
    const broken = new AttemptSigningThread({}, new URL('./no-such-attempt-signing-worker.mjs', import.meta.url));
    const signer = new DeliverySigner(rt.ctx.keys, undefined, sharedSigningThread(), broken);
    for (const profile of ['shared_secret', 'asymmetric', 'cose'] as const) {
      const row = endpoint(profile);
      const got = await signer.sign(row, envelope(40), NOW);
      const want = await reference(row, envelope(40), NOW);
      expect(Buffer.from(got.body).equals(Buffer.from(want.body))).toBe(true);
      expect(got.headers).toEqual(want.headers);
    }
    expect(broken.available).toBe(false);
    expect(broken.signed).toBe(0);
    await broken.close();
  });
});
