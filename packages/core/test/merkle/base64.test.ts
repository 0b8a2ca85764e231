import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from '../../src/merkle/base64.ts';

describe('merkle base64 helpers', () => {
  it('round-trip any bytes and agree with the standard alphabet and padding', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const text = encodeBase64(bytes);
        expect(decodeBase64(text)).toEqual(bytes);
        expect(text).toBe(btoa(String.fromCharCode(...bytes)));
      }),
    );
  });

  it.each([
    ['missing padding', 'AA'],
    ['too much padding', 'A==='],
    ['padding inside', 'AA==AAAA'],
    ['whitespace', 'AAAA AAAA'],
    ['newline', 'AAAA\n'],
    ['url-safe alphabet', 'ab-_'],
    ['non-zero pad bits (one pad)', 'AAB='],
    ['non-zero pad bits (two pads)', 'AB=='],
    ['non-ASCII', 'AAA\u00e9'],
  ])('refuse %s', (_, text) => {
    expect(decodeBase64(text)).toBeUndefined();
  });
});
