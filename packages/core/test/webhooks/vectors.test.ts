/**
 * Walks vectors/webhooks: every valid delivery verifies with the facts its vector names; every mutated delivery is
 * refused with exactly the code its vector names. The receiver's state (trusted JWKS, secrets, replay cache, clock)
 * comes from the vector alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tryDecodeBase64 } from '../../src/encoding/base64.ts';
import type { Ed25519PublicJwk } from '../../src/signing/ed25519-jwk.ts';
import { verifyWebhookDelivery } from '../../src/webhooks/verify-webhook-delivery.ts';
import type { VectorInput } from './write-vectors.ts';

const DIR = fileURLToPath(new URL('../../../../vectors/webhooks/', import.meta.url));

interface Vector {
  desc: string;
  input: VectorInput;
  want?: { valid: true; webhook_id: string; timestamp: number; key_id?: string };
  wantErr?: string;
}

const vectors = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(DIR + file, 'utf8')) as Vector) }));

async function run(input: VectorInput) {
  const body = tryDecodeBase64(input.body);
  if (body === undefined) throw new Error('vector body is not base64');
  const looked: string[] = [];
  const result = await verifyWebhookDelivery({
    profile: input.profile,
    headers: input.headers,
    body,
    now: input.now,
    ...(input.toleranceSeconds === undefined ? {} : { toleranceSeconds: input.toleranceSeconds }),
    ...(input.secrets === undefined ? {} : { secrets: input.secrets }),
    ...(input.jwks === undefined
      ? {}
      : {
          resolveKey: (kid: string): Ed25519PublicJwk | undefined => {
            looked.push(kid);
            return input.jwks?.keys.find((k) => k.kid === kid);
          },
        }),
    seenBefore: (id) => (input.seen ?? []).includes(id),
  });
  return { result, looked };
}

describe('webhook delivery vectors (vectors/webhooks)', () => {
  it('hold every profile, valid and mutated', () => {
    for (const profile of ['shared_secret', 'asymmetric', 'cose']) {
      expect(vectors.filter((v) => v.input.profile === profile && v.want).length).toBeGreaterThanOrEqual(1);
      expect(vectors.filter((v) => v.input.profile === profile && v.wantErr).length).toBeGreaterThanOrEqual(8);
    }
    expect(vectors.every((v) => (v.want === undefined) !== (v.wantErr === undefined))).toBe(true);
  });

  it.each(vectors.map((v) => [v.file, v] as const))('%s', async (_file, vector) => {
    const { result, looked } = await run(vector.input);
    if (vector.want) {
      expect(result, JSON.stringify(result)).toMatchObject(vector.want);
      expect(result.code).toBeUndefined();
      expect(result.envelope?.event_id).toBe(vector.want.webhook_id);
      if (vector.want.key_id === undefined) expect(result.key_id).toBeUndefined();
    } else {
      expect(result.valid).toBe(false);
      expect(result.code, JSON.stringify(result)).toBe(vector.wantErr);
      expect(result.envelope).toBeUndefined();
    }
    // A key id that is not ours in form never reaches the resolver.
    expect(looked.every((kid) => /^ns:key:[A-Za-z0-9._-]+$/.test(kid))).toBe(true);
  });
});
