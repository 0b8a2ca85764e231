/**
 * The single-pass writer behind canonicalJson must give exactly the `canonicalize` package's text on every value it
 * takes, and take nothing the package path would refuse or rewrite (those go to canonical-json.ts, which names the
 * error). The vectors and refusals of canonical-json.test.ts run through it too.
 */
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/json/canonical-json.ts';
import { tryCanonicalJson } from '../../src/json/write-canonical-json.ts';

/** JSON values with any UTF-16 content, lone surrogates included, and -0. */
const jsonValues = fc.jsonValue({ stringUnit: 'binary' });
/** Plain values the writer must take: objects, also null-prototype ones and ones with undefined members. */
const plainValues = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'grapheme' }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value')),
    fc.dictionary(fc.string({ unit: 'grapheme' }), fc.option(tie('value'), { nil: undefined })),
    fc
      .dictionary(fc.string(), tie('value'))
      .map((members) => Object.assign(Object.create(null) as Record<string, unknown>, members)),
  ),
})).value;

describe('tryCanonicalJson', () => {
  it('writes what the canonicalize package writes, on plain values', () => {
    fc.assert(
      fc.property(plainValues, (value) => {
        const text = tryCanonicalJson(value);
        expect(text).toBeDefined();
        expect(text).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it('on any JSON value, agrees with the package: the same text, or a refusal where it refuses', () => {
    fc.assert(
      fc.property(jsonValues, (value) => {
        let expected: string | undefined;
        try {
          expected = canonicalize(value);
        } catch {
          expected = undefined; // a lone surrogate
        }
        const text = tryCanonicalJson(value);
        if (text !== undefined) expect(text).toBe(expected);
        if (expected === undefined) {
          expect(() => canonicalJson(value)).toThrow(expect.objectContaining({ code: 'invalid_json' }));
        } else {
          expect(canonicalJson(value)).toBe(expected);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('takes nothing that needs judgement', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 300; i++) deep = [deep];
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const throwing = {
      get a(): never {
        throw new Error('getter');
      },
    };
    for (const value of [
      undefined,
      () => 1,
      Symbol('s'),
      10n,
      NaN,
      -Infinity,
      [1, undefined],
      [1, , 3], // eslint-disable-line no-sparse-arrays
      { s: 'a\ud800' },
      { ['\udc00']: 1 },
      { at: new Date(0) },
      { toJSON: () => 1 },
      Object.assign([1], { toJSON: () => 2 }),
      { m: new Map() },
      { n: new Number(1) },
      deep,
      circular,
      throwing,
    ]) {
      expect(tryCanonicalJson(value)).toBeUndefined();
    }
  });

  it('writes -0 as 0, escapes as JSON.stringify does and sorts keys by UTF-16 code units', () => {
    expect(tryCanonicalJson({ z: -0, '\u20ac': '"\\\n\u2028', A: [true, null], '\ud83d\ude02': 1, b: undefined })).toBe(
      '{"A":[true,null],"z":0,"\u20ac":"\\"\\\\\\n\u2028","\ud83d\ude02":1}',
    );
  });
});
