import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedVectorPath } from '../../../../vectors/lib/shared-vectors.ts';
import { describe, expect, it } from 'vitest';
import { AarError } from '../../src/errors/aar-error.ts';
import { canonicalBytes, canonicalJson } from '../../src/json/canonical-json.ts';
import { parseStrictJson } from '../../src/json/parse-strict-json.ts';

// cyberphone/json-canonicalization testdata, read from ../shared/vectors/jcs (never copied into the project)
const VECTORS = sharedVectorPath('jcs');
const files = VECTORS ? readdirSync(join(VECTORS, 'input')).filter((name) => name.endsWith('.json')) : [];
/** Inputs the strict parser refuses on purpose, with the pointer it names. */
const STRICT_REFUSALS: Record<string, string> = { 'values.json': '/numbers/0' };

describe.skipIf(!VECTORS)('canonicalJson: RFC 8785 vectors (cyberphone/json-canonicalization)', () => {
  it('has the six vector pairs', () => {
    expect(files.sort()).toEqual([
      'arrays.json',
      'french.json',
      'structures.json',
      'unicode.json',
      'values.json',
      'weird.json',
    ]);
  });

  it.each(files)('%s', (name) => {
    const input = readFileSync(join(VECTORS!, 'input', name), 'utf8');
    const output = readFileSync(join(VECTORS!, 'output', name));
    expect(Buffer.from(canonicalBytes(JSON.parse(input))).equals(output)).toBe(true);
    expect(canonicalJson(JSON.parse(input))).toBe(output.toString('utf8'));

    const refusedAt = STRICT_REFUSALS[name];
    if (refusedAt === undefined) {
      expect(Buffer.from(canonicalBytes(parseStrictJson(input))).equals(output)).toBe(true);
    } else {
      expect(() => parseStrictJson(input)).toThrow(
        expect.objectContaining({ code: 'invalid_json', errors: [expect.objectContaining({ path: refusedAt })] }),
      );
    }
  });
});

describe('canonicalJson refuses what JSON cannot hold', () => {
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;
  const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays

  it.each([
    ['undefined', undefined, ''],
    ['a function', () => 1, ''],
    ['a symbol', Symbol('s'), ''],
    ['a bigint', 10n, ''],
    ['NaN', NaN, ''],
    ['Infinity in an object', { amount: Infinity }, '/amount'],
    ['-Infinity in an array', [1, -Infinity], '/1'],
    ['undefined in an array', [1, undefined], '/1'],
    ['a hole in a sparse array', sparse, '/1'],
    ['a function member', { a: { f: () => 1 } }, '/a/f'],
    ['a lone surrogate', { name: 'a\ud800' }, '/name'],
    ['a lone surrogate in a key', { ['\udc00']: 1 }, ''],
    ['a circular reference', circular, '/self'],
    ['a Map', { m: new Map([['a', 1]]) }, '/m'],
    ['a class instance', { u: new URLSearchParams('a=1') }, '/u'],
  ])('%s', (_name, value, path) => {
    let thrown: unknown;
    try {
      canonicalJson(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AarError);
    expect((thrown as AarError).code).toBe('invalid_json');
    if (path !== '') expect((thrown as AarError).errors?.[0]?.path).toBe(path);
  });

  it('refuses nesting beyond the call stack with invalid_json, not a RangeError', () => {
    let value: unknown = 1;
    for (let i = 0; i < 200_000; i++) value = [value];
    expect(() => canonicalJson(value)).toThrow(expect.objectContaining({ code: 'invalid_json' }));
  });
});

describe('canonicalJson on values it accepts', () => {
  it('omits undefined object members, as JSON.stringify does', () => {
    expect(canonicalJson({ b: 1, a: undefined })).toBe('{"b":1}');
  });

  it('uses toJSON (Date) and writes -0 as 0', () => {
    expect(canonicalJson({ at: new Date(Date.UTC(2025, 0, 2, 3, 4, 5)), z: -0 })).toBe(
      '{"at":"2025-01-02T03:04:05.000Z","z":0}',
    );
  });

  it('sorts keys by UTF-16 code units and encodes UTF-8', () => {
    expect(canonicalJson({ '€': 1, b: 2, '😂': 3, A: 4 })).toBe('{"A":4,"b":2,"€":1,"😂":3}');
    expect(Array.from(canonicalBytes('€'))).toEqual([0x22, 0xe2, 0x82, 0xac, 0x22]);
  });
});
