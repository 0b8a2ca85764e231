import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate, tryUtf8Decode, utf8Decode, utf8Encode } from '../../src/encoding/utf8.ts';

describe('utf8', () => {
  it('encodes and decodes', () => {
    expect(Array.from(utf8Encode('€😂'))).toEqual([0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x82]);
    expect(utf8Decode(new Uint8Array([0xe2, 0x82, 0xac]))).toBe('€');
  });

  it('keeps a BOM for the caller to see', () => {
    expect(utf8Decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('\ufeffA');
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['a code point beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('refuses %s (fatal, no U+FFFD)', (_name, bytes) => {
    expect(tryUtf8Decode(new Uint8Array(bytes))).toBeUndefined();
    expect(() => utf8Decode(new Uint8Array(bytes), '/body')).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it('refuses to encode lone surrogates (TextEncoder would write U+FFFD)', () => {
    expect(hasLoneSurrogate('a\ud800')).toBe(true);
    expect(hasLoneSurrogate('\udc00a')).toBe(true);
    expect(hasLoneSurrogate('\ud83d\ude02')).toBe(false);
    expect(() => utf8Encode('a\ud800')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});
