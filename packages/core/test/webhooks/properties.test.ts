/**
 * Properties over random envelopes, ids and timestamps, for every profile: what the sender signs the receiver
 * accepts, with the envelope intact; flipping any single bit of the body or of any signature in the
 * webhook-signature header makes it refuse.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64, tryDecodeBase64 } from '../../src/encoding/base64.ts';
import { canonicalJson } from '../../src/json/canonical-json.ts';
import { parseStrictJson } from '../../src/json/parse-strict-json.ts';
import { signWebhookDelivery } from '../../src/webhooks/sign-webhook-delivery.ts';
import { verifyWebhookDelivery } from '../../src/webhooks/verify-webhook-delivery.ts';
import type { WebhookProfile } from '../../src/webhooks/webhook-profile.ts';
import type { TestKey } from './fixtures.ts';
import { envelope, NEW_SECRET, OLD_SECRET, testKey } from './fixtures.ts';

let key: TestKey;
beforeAll(async () => {
  key = await testKey();
});

const profile = fc.constantFrom<WebhookProfile>('shared_secret', 'asymmetric', 'cose');
const webhookId = fc.stringMatching(/^[A-Za-z0-9:_-]{1,64}$/);
const timestamp = fc.integer({ min: 0, max: 4_102_444_800 });
/**
 * The data of envelopes the service emits: JSON values whose RFC 8785 text core's strict parser reads back (it refuses
 * non-integers of more than 15 significant digits, which a double does not hold exactly as written, and the keys
 * `__proto__`, `constructor` and `prototype`; the service's data are strings, integers, booleans and amounts). -0 is
 * left out: JCS writes it as 0. The whole dictionary is checked, keys included: a `prototype` key once slipped through
 * a check of the values alone, and the receiver then refused the envelope before looking at any signature.
 */
const readBack = (v: unknown): boolean => {
  try {
    parseStrictJson(canonicalJson(v));
    return true;
  } catch {
    return false;
  }
};
const data = fc
  .dictionary(
    fc.string({ maxLength: 12 }),
    fc.jsonValue({ maxDepth: 3 }).filter((v) => readBack(v) && !Object.is(v, -0)),
    { maxKeys: 6 },
  )
  .filter(readBack);

async function deliver(p: WebhookProfile, id: string, ts: number, d: Record<string, unknown>) {
  const env = { ...envelope(id), data: d };
  const signed = await signWebhookDelivery({
    profile: p,
    webhookId: id,
    timestamp: ts,
    envelope: env,
    signer: key.signer,
    ...(p === 'shared_secret' ? { secrets: [OLD_SECRET, NEW_SECRET] } : {}),
  });
  const verify = (body: Uint8Array, headers: Record<string, string>) =>
    verifyWebhookDelivery({
      profile: p,
      headers,
      body,
      now: ts,
      ...(p === 'shared_secret'
        ? { secrets: [NEW_SECRET] }
        : { resolveKey: (kid: string) => (kid === key.keyId ? key.jwk : undefined) }),
    });
  return { env, signed, verify };
}

describe('webhook delivery properties', () => {
  it('sign then verify round-trips, with the envelope intact', async () => {
    await fc.assert(
      fc.asyncProperty(profile, webhookId, timestamp, data, async (p, id, ts, d) => {
        const { env, signed, verify } = await deliver(p, id, ts, d);
        const result = await verify(signed.body, signed.headers);
        expect(result).toMatchObject({ valid: true, webhook_id: id, timestamp: ts });
        const { signature: _signature, ...unsigned } = result.envelope as Record<string, unknown>;
        expect(canonicalJson(unsigned)).toBe(canonicalJson(env));
      }),
      { numRuns: 60 },
    );
  });

  it('any single bit flipped in the body fails', async () => {
    await fc.assert(
      fc.asyncProperty(
        profile,
        webhookId,
        timestamp,
        data,
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        async (p, id, ts, d, at, bit) => {
          const { signed, verify } = await deliver(p, id, ts, d);
          const body = new Uint8Array(signed.body);
          const index = at % body.length;
          body[index] = (body[index] as number) ^ (1 << bit);
          expect((await verify(body, signed.headers)).valid).toBe(false);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('any single bit flipped in any signature of the header fails', async () => {
    await fc.assert(
      fc.asyncProperty(
        profile,
        webhookId,
        timestamp,
        data,
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        async (p, id, ts, d, at, bit) => {
          const { signed, verify } = await deliver(p, id, ts, d);
          const entries = (signed.headers['webhook-signature'] as string).split(' ');
          // shared_secret carries two v1 entries; the receiver holds only the second secret, so flip that one
          const target = entries.length - 1;
          const [version, b64] = (entries[target] as string).split(',') as [string, string];
          const sig = tryDecodeBase64(b64) as Uint8Array;
          const index = at % sig.length;
          sig[index] = (sig[index] as number) ^ (1 << bit);
          entries[target] = `${version},${encodeBase64(sig)}`;
          const headers = { ...signed.headers, 'webhook-signature': entries.join(' ') };
          const result = await verify(signed.body, headers);
          expect(result).toMatchObject({ valid: false, code: 'signature_invalid' });
        },
      ),
      { numRuns: 80 },
    );
  });
});
