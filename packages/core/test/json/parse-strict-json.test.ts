import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AarError } from '../../src/errors/aar-error.ts';
import { parseStrictJson } from '../../src/json/parse-strict-json.ts';
import { parseStrictJsonBytes } from '../../src/json/parse-strict-json-bytes.ts';

function refusal(text: string, options?: { maxDepth?: number }): { path: string | undefined; error: AarError } {
  try {
    parseStrictJson(text, options);
  } catch (error) {
    expect(error).toBeInstanceOf(AarError);
    const aar = error as AarError;
    expect(aar.code).toBe('invalid_json');
    expect(aar.errors).toHaveLength(1);
    return { path: aar.errors?.[0]?.path, error: aar };
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
}

const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
const pointerOfDepth = (n: number): string => '/0'.repeat(n);

describe('parseStrictJson refuses every bad input of SECURITY.md "JSON"', () => {
  it.each([
    ['duplicate amount keys', '{"resource":{"amount":1,"amount":1000}}', '/resource/amount'],
    ['duplicate inherited-looking key', '{"toString":1,"toString":2}', '/toString'],
    ['__proto__ key', '{"a":{"__proto__":{"admin":true}}}', '/a/__proto__'],
    ['constructor key', '{"constructor":{"prototype":{}}}', '/constructor'],
    ['prototype key', '[{"prototype":1}]', '/0/prototype'],
    ['escaped lone high surrogate', '{"name":"\\ud800"}', '/name'],
    ['escaped lone low surrogate', '["\\udc00"]', '/0'],
    ['escaped high surrogate before a non-surrogate escape', '"\\ud800\\u0041"', ''],
    ['escaped high surrogate before a raw low surrogate', '"\\ud800\udc00"', ''],
    ['raw lone high surrogate', '{"m":"a\ud800b"}', '/m'],
    ['raw lone low surrogate', '"\udc00"', ''],
    ['lone surrogate in a key', '{"\\ud800":1}', ''],
    ['negative zero', '{"amount":-0}', '/amount'],
    ['negative zero with fraction', '-0.0', ''],
    ['negative zero with exponent', '-0e5', ''],
    ['1e400', '{"amount":1e400}', '/amount'],
    ['-1e400', '-1e400', ''],
    ['2^53 + 1', '9007199254740993', ''],
    ['2^53', '[9007199254740992]', '/0'],
    ['-(2^53 + 1)', '-9007199254740993', ''],
    ['integer in exponent form beyond 2^53', '1E30', ''],
    ['16 significant digits with a fraction', '0.1234567890123456', ''],
    ['17 significant digits (JCS values.json)', '333333333.33333329', ''],
    ['underflow to zero', '1e-400', ''],
    ['subnormal that keeps fewer digits', '1.234567890123e-320', ''],
    ['BOM', '\ufeff{}', ''],
  ])('%s', (_name, text, path) => {
    expect(refusal(text).path).toBe(path);
  });

  it('refuses 10,000-deep nesting fast, naming the first level too deep', () => {
    const started = performance.now();
    expect(refusal(deep(10_000)).path).toBe(pointerOfDepth(64));
    expect(refusal('{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)).path).toBe('/a'.repeat(64));
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('allows exactly maxDepth levels and refuses one more', () => {
    expect(parseStrictJson(deep(64))).toBeDefined();
    expect(refusal(deep(65)).path).toBe(pointerOfDepth(64));
    expect(refusal('[{}]', { maxDepth: 1 }).path).toBe('/0');
    expect(parseStrictJson('[]', { maxDepth: 1 })).toEqual([]);
    expect(refusal('[]', { maxDepth: 0 }).path).toBe('');
  });

  it('never overflows the call stack, even with the depth limit lifted', () => {
    const value = parseStrictJson(deep(200_000), { maxDepth: Infinity });
    expect(Array.isArray(value)).toBe(true);
  });

  it('never echoes the digits of a refused number (it may be a card number)', () => {
    for (const text of ['4111111111111111111', '[4111111111111111.5]', '{"pan":04111111111111111}']) {
      expect(refusal(text).error.message).not.toMatch(/4111111/);
    }
  });
});

describe('parseStrictJson refuses every other RFC 8259 violation', () => {
  it.each([
    ['', ''],
    [' ', ''],
    ['{} x', ''],
    ['{}{}', ''],
    ['1 2', ''],
    ['[1]]', ''],
    ['01', ''],
    ['-01', ''],
    ['00', ''],
    ['1.', ''],
    ['.5', ''],
    ['+1', ''],
    ['1e', ''],
    ['1e+', ''],
    ['-', ''],
    ['NaN', ''],
    ['Infinity', ''],
    ['0x10', ''],
    ["'a'", ''],
    ['{a:1}', ''],
    ['{1:2}', ''],
    ['[1,]', '/1'],
    ['[,1]', '/0'],
    ['[1 2]', ''],
    ['{"a":1,}', ''],
    ['{"a" 1}', '/a'],
    ['{"a":}', '/a'],
    ['{"a":1 "b":2}', ''],
    ['{"a":[1,{"b":01}]}', '/a/1/b'],
    ['{"a/b~c":{"x":-0}}', '/a~1b~0c/x'],
    ['"\\x"', ''],
    ['"\\u12"', ''],
    ['"\\u12G4"', ''],
    ['"abc', ''],
    ['"a\tb"', ''],
    ['"a\u0000b"', ''],
    ['"a\nb"', ''],
    ['tru', ''],
    ['nul', ''],
    ['True', ''],
    ['truex', ''],
    ['\u000b1', ''],
    ['\u00a01', ''],
    ['/* */1', ''],
    ['[1,2', ''],
    ['{"a":1', ''],
  ])('%j', (text, path) => {
    expect(refusal(text).path).toBe(path);
  });
});

describe('parseStrictJson accepts strict JSON', () => {
  it.each([
    ['{"a":[1,2,{"b":null}],"c":"\\ud83d\\ude02","d":1.5,"e":-2,"f":true,"g":false}'],
    [' \t\n\r{ "a" : [ ] , "b" : { } }\n'],
    ['"😂 raw pair, é, \\u20ac\\/\\b\\f\\n\\r\\t\\"\\\\"'],
    ['"\\u0000 escaped controls are fine \\u001f"'],
    ['{"hasOwnProperty":1,"toString":2,"valueOf":3}'],
    ['[0, -1, 1E2, 1.0, 56.0, 0.5e-5, 1e-7, 123.456, 0.123456789012345, 5e-324, 0e400, 0.0]'],
    ['[9007199254740991, -9007199254740991, 9007199254740991.000]'],
  ])('%j', (text) => {
    expect(parseStrictJson(text)).toEqual(JSON.parse(text));
  });

  it('returns plain objects and arrays', () => {
    const value = parseStrictJson('{"a":{"b":[{}]}}') as { a: { b: object[] } };
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(value.a)).toBe(Object.prototype);
    expect(Array.isArray(value.a.b)).toBe(true);
  });

  it('round-trips values inside its domain', () => {
    const key = fc.string().filter((k) => !['__proto__', 'constructor', 'prototype'].includes(k));
    const number = fc.oneof(
      fc.maxSafeInteger(),
      fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => n / 100),
      fc.integer({ min: 1, max: 999 }).map((n) => n / 1e9),
    );
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        number,
        fc.string({ unit: 'grapheme' }),
        tie('array'),
        tie('object'),
      ),
      array: fc.array(tie('tree'), { maxLength: 5 }),
      object: fc.dictionary(key, tie('tree'), { maxKeys: 5 }),
    }));
    fc.assert(
      fc.property(tree, (value) => {
        expect(parseStrictJson(JSON.stringify(value))).toEqual(value);
      }),
    );
  });

  it('never accepts what JSON.parse refuses, and agrees with it on what it accepts', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string(), fc.string({ unit: 'binary' })), (text) => {
        let strict: unknown;
        try {
          strict = parseStrictJson(text);
        } catch (error) {
          expect((error as AarError).code).toBe('invalid_json');
          return;
        }
        expect(strict).toEqual(JSON.parse(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseStrictJsonBytes', () => {
  const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);
  it.each([
    ['invalid utf-8 byte', bytes(0x22, 0xff, 0x22)],
    ['overlong encoding of /', bytes(0x22, 0xc0, 0xaf, 0x22)],
    ['utf-8 encoded surrogate', bytes(0x22, 0xed, 0xa0, 0x80, 0x22)],
    ['truncated sequence', bytes(0x22, 0xe2, 0x82, 0x22)],
    ['utf-8 BOM', bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d)],
  ])('refuses %s with invalid_json', (_name, input) => {
    expect(() => parseStrictJsonBytes(input)).toThrow(expect.objectContaining({ code: 'invalid_json' }));
  });

  it('parses valid utf-8', () => {
    expect(parseStrictJsonBytes(new TextEncoder().encode('{"name":"Café ☕"}'))).toEqual({ name: 'Café ☕' });
  });
});
