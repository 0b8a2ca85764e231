import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeBase64, encodeBase64, tryDecodeBase64 } from '../../src/encoding/base64.ts';
import { decodeBase64Url, encodeBase64Url, tryDecodeBase64Url } from '../../src/encoding/base64url.ts';
import { decodeHex, encodeHex, tryDecodeHex } from '../../src/encoding/hex.ts';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('base64url', () => {
  it.each([
    ['', ''],
    ['f', 'Zg'],
    ['fo', 'Zm8'],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg'],
    ['fooba', 'Zm9vYmE'],
    ['foobar', 'Zm9vYmFy'],
  ])('RFC 4648 section 10: %j <-> %s', (plain, encoded) => {
    expect(encodeBase64Url(text(plain))).toBe(encoded);
    expect(decodeBase64Url(encoded)).toEqual(text(plain));
  });

  it('uses - and _ where base64 has + and /', () => {
    expect(encodeBase64Url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe('-_-_');
  });

  it.each([
    ['padding', 'Zg=='],
    ['single padding', 'Zm8='],
    ['+', '+_-_'],
    ['/', '-/-_'],
    ['space', 'Zm9v Yg'],
    ['newline', 'Zm9v\nYg'],
    ['impossible length', 'Zm9vY'],
    ['non-zero trailing bits (2 chars)', 'Zh'],
    ['non-zero trailing bits (3 chars)', 'Zm9'],
    ['non-ascii', 'Zm9vé'],
  ])('refuses %s', (_name, encoded) => {
    expect(tryDecodeBase64Url(encoded)).toBeUndefined();
    expect(() => decodeBase64Url(encoded, '/sig')).toThrow(
      expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ path: '/sig' })] }),
    );
  });

  it('refuses non-strings without throwing in the try form', () => {
    expect(tryDecodeBase64Url(undefined)).toBeUndefined();
    expect(tryDecodeBase64Url(42)).toBeUndefined();
  });

  it('round-trips, and each byte string has exactly one encoding', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const encoded = encodeBase64Url(bytes);
        expect(encoded).toBe(Buffer.from(bytes).toString('base64url'));
        expect(decodeBase64Url(encoded)).toEqual(bytes);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'AZaz09-_Qgw'), maxLength: 12 }), (candidate) => {
        const bytes = tryDecodeBase64Url(candidate);
        if (bytes !== undefined) expect(encodeBase64Url(bytes)).toBe(candidate);
      }),
    );
  });
});

describe('base64 (standard, padded)', () => {
  it.each([
    ['', ''],
    ['f', 'Zg=='],
    ['fo', 'Zm8='],
    ['foo', 'Zm9v'],
    ['foobar', 'Zm9vYmFy'],
  ])('RFC 4648 section 10: %j <-> %s', (plain, encoded) => {
    expect(encodeBase64(text(plain))).toBe(encoded);
    expect(decodeBase64(encoded)).toEqual(text(plain));
  });

  it.each([
    ['missing padding', 'Zg'],
    ['short padding', 'Zg='],
    ['extra padding', 'Zm8=='],
    ['too much padding', 'Z==='],
    ['padding only', '===='],
    ['padding in the middle', 'Zg==Zg=='],
    ['url alphabet', '-_-_'],
    ['whitespace', 'Zm9v YmFy'],
    ['non-zero trailing bits', 'Zh=='],
  ])('refuses %s', (_name, encoded) => {
    expect(tryDecodeBase64(encoded)).toBeUndefined();
    expect(() => decodeBase64(encoded)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('agrees with Node', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(encodeBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
        expect(decodeBase64(encodeBase64(bytes))).toEqual(bytes);
      }),
    );
  });
});

describe('hex', () => {
  it('encodes lowercase and decodes either case', () => {
    expect(encodeHex(new Uint8Array([0, 15, 16, 255]))).toBe('000f10ff');
    expect(decodeHex('000F10fF')).toEqual(new Uint8Array([0, 15, 16, 255]));
  });

  it.each([['abc'], ['0g'], [' 00'], ['0x00']])('refuses %j', (encoded) => {
    expect(tryDecodeHex(encoded)).toBeUndefined();
    expect(() => decodeHex(encoded)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});
