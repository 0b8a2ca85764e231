import { describe, expect, it } from 'vitest';
import { mandateDigest } from '../../src/mandates/index.ts';
import { AP2_DIR, docTokens } from './support/ap2-vectors.ts';

describe('mandateDigest', () => {
  it('is unpadded base64url SHA-256 of the UTF-8 text', () => {
    expect(mandateDigest('')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
    expect(mandateDigest('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(mandateDigest('é')).not.toBe(mandateDigest('e\u0301')); // no normalisation: the bytes as submitted
  });

  it('refuses a lone surrogate (no UTF-8 bytes)', () => {
    expect(() => mandateDigest('\ud800')).toThrow();
  });

  it.skipIf(!AP2_DIR)("is the sd_hash of the AP2 documentation's chained payment", () => {
    const token = docTokens()[2]?.token ?? '';
    expect(mandateDigest(token.slice(0, token.indexOf('~~') + 1))).toBe('uixoHemmfrrCSbPREo9j-ziLuMkqExsPeWrwA-PK0Ck');
  });
});
