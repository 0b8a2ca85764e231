import { describe, expect, it } from 'vitest';
import { AarError } from '../../src/errors/aar-error.ts';
import { generateWebhookSecret, parseWebhookSecret } from '../../src/webhooks/webhook-secret.ts';

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i * 7);

function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof AarError ? error.code : 'not an AarError';
  }
}

describe('webhook secrets', () => {
  it('round-trips 24 to 64 random bytes through whsec_ + base64', () => {
    for (const n of [24, 32, 64]) {
      const secret = generateWebhookSecret(bytes(n));
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(parseWebhookSecret(secret)).toEqual(bytes(n));
    }
    // independent encoder: Node's Buffer
    expect(generateWebhookSecret(bytes(32))).toBe(`whsec_${Buffer.from(bytes(32)).toString('base64')}`);
  });

  it('refuses too few or too many bytes, and any other form, without echoing the secret', () => {
    expect(refusal(() => generateWebhookSecret(bytes(23)))).toBe('invalid_request');
    expect(refusal(() => generateWebhookSecret(bytes(65)))).toBe('invalid_request');
    const good = generateWebhookSecret(bytes(32)); // 44 base64 digits, one `=`
    for (const bad of [
      good.slice('whsec_'.length), // no prefix
      'WHSEC_' + good.slice(6),
      good.replace(/=+$/, ''), // unpadded
      good.replace('+', '-'), // base64url digit
      good + ' ',
      `whsec_${btoa('x'.repeat(23))}`,
      `whsec_${btoa('x'.repeat(65))}`,
      'whsec_',
    ]) {
      let message = '';
      try {
        parseWebhookSecret(bad);
      } catch (error) {
        expect(error).toBeInstanceOf(AarError);
        expect((error as AarError).code).toBe('invalid_request');
        message = (error as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toContain(good.slice(6, 20));
    }
  });
});
