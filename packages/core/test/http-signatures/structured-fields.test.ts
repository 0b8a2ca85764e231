import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseDictionary } from '../../src/http-signatures/parse-structured-field.ts';
import { serializeDictionary, serializeString } from '../../src/http-signatures/serialize-structured-field.ts';
import type { BareItem, Dictionary, InnerList, Item } from '../../src/http-signatures/structured-field-types.ts';

const item = (value: BareItem, params: [string, BareItem][] = []): Item => ({
  kind: 'item',
  value,
  params: new Map(params),
});

describe('parseDictionary (RFC 8941 subset)', () => {
  it('parses a Signature-Input member: inner list of strings with parameters', () => {
    const parsed = parseDictionary('sig1=("@method" "content-digest");created=1618884473;keyid="k";alg="ed25519"');
    const member = parsed?.get('sig1') as InnerList;
    expect(member.kind).toBe('inner-list');
    expect(member.items.map((i) => i.value)).toEqual([
      { type: 'string', value: '@method' },
      { type: 'string', value: 'content-digest' },
    ]);
    expect([...member.params]).toEqual([
      ['created', { type: 'integer', value: 1618884473 }],
      ['keyid', { type: 'string', value: 'k' }],
      ['alg', { type: 'string', value: 'ed25519' }],
    ]);
  });

  it('keeps the types apart: integer, decimal, string, token, bytes, boolean', () => {
    const parsed = parseDictionary('a=1, b=1.0, c="x", d=x, e=:AAE=:, f, g=?0, h=-5');
    expect([...parsed!].map(([key, member]) => [key, (member as Item).value])).toEqual([
      ['a', { type: 'integer', value: 1 }],
      ['b', { type: 'decimal', value: 1 }],
      ['c', { type: 'string', value: 'x' }],
      ['d', { type: 'token', value: 'x' }],
      ['e', { type: 'bytes', value: new Uint8Array([0, 1]) }],
      ['f', { type: 'boolean', value: true }],
      ['g', { type: 'boolean', value: false }],
      ['h', { type: 'integer', value: -5 }],
    ]);
  });

  it('unescapes strings and accepts the whitespace RFC 8941 allows', () => {
    const parsed = parseDictionary('  a="q\\"b\\\\" ,\tb=(  "x"   "y"  );p ');
    expect((parsed?.get('a') as Item).value).toEqual({ type: 'string', value: 'q"b\\' });
    expect((parsed?.get('b') as InnerList).items).toHaveLength(2);
    expect((parsed?.get('b') as InnerList).params.get('p')).toEqual({ type: 'boolean', value: true });
  });

  it('reads an empty field as an empty dictionary', () => {
    expect(parseDictionary('')?.size).toBe(0);
  });

  it.each([
    ['duplicate key', 'a=1, a=2'],
    ['duplicate parameter', 'a=1;p=1;p=2'],
    ['duplicate inner-list parameter', 'a=("x");created=1;created=2'],
    ['trailing comma', 'a=1,'],
    ['leading comma', ',a=1'],
    ['missing comma', 'a=1 b=2'],
    ['uppercase key', 'A=1'],
    ['key starting with a digit', '1a=1'],
    ['plus sign', 'a=+1'],
    ['16-digit integer', 'a=1234567890123456'],
    ['decimal with 4 fraction digits', 'a=1.2345'],
    ['decimal with 13 integer digits', 'a=1234567890123.1'],
    ['trailing dot', 'a=1.'],
    ['lone minus', 'a=-'],
    ['unterminated string', 'a="x'],
    ['bad escape', 'a="\\n"'],
    ['control character in string', 'a="\u0001"'],
    ['non-ascii in string', 'a="é"'],
    ['unterminated byte sequence', 'a=:AAAA'],
    ['base64url byte sequence', 'a=:-_-_:'],
    ['unpadded byte sequence', 'a=:AAE:'],
    ['non-zero trailing bits', 'a=:AAF=:'],
    ['bad boolean', 'a=?2'],
    ['unterminated inner list', 'a=("x" "y"'],
    ['items not separated by a space', 'a=("x""y")'],
    ['nested inner list', 'a=(("x"))'],
    ['RFC 9651 date', 'a=@1659578233'],
    ['RFC 9651 display string', 'a=%"x"'],
    ['tab before a parameter', 'a=1;\tp'],
    ['leading tab', '\ta=1'],
    ['empty member value', 'a='],
    ['garbage after a member', 'a=1 ;p'],
  ])('refuses %s', (_name, field) => {
    expect(parseDictionary(field)).toBeUndefined();
  });

  it('refuses non-strings and oversized fields without throwing', () => {
    expect(parseDictionary(undefined)).toBeUndefined();
    expect(parseDictionary(42)).toBeUndefined();
    expect(parseDictionary(`a="${'x'.repeat(20_000)}"`)).toBeUndefined();
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (field) => {
        const parsed = parseDictionary(field);
        expect(parsed === undefined || parsed instanceof Map).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips what it serializes', () => {
    const key = fc.stringMatching(/^[a-z*][a-z0-9_.*-]{0,6}$/);
    const bare: fc.Arbitrary<BareItem> = fc.oneof(
      fc
        .integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 })
        .map((value) => ({ type: 'integer' as const, value: value === 0 ? 0 : value })),
      fc.integer({ min: -999_999, max: 999_999 }).map((n) => ({ type: 'decimal' as const, value: n / 1000 })),
      fc
        .string({ maxLength: 12 })
        .filter((s) => /^[\x20-\x7e]*$/.test(s))
        .map((value) => ({ type: 'string' as const, value })),
      fc
        .stringMatching(/^[A-Za-z*][A-Za-z0-9:/!#$%&'*+.^_`|~-]{0,8}$/)
        .map((value) => ({ type: 'token' as const, value })),
      fc.uint8Array({ maxLength: 20 }).map((value) => ({ type: 'bytes' as const, value })),
      fc.boolean().map((value) => ({ type: 'boolean' as const, value })),
    );
    const params = fc
      .uniqueArray(fc.tuple(key, bare), { selector: ([k]) => k, maxLength: 3 })
      .map((entries) => new Map(entries));
    const anItem = fc.record({ kind: fc.constant('item' as const), value: bare, params });
    const member = fc.oneof(
      anItem,
      fc.record({ kind: fc.constant('inner-list' as const), items: fc.array(anItem, { maxLength: 3 }), params }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, member), { selector: ([k]) => k, maxLength: 4 }), (entries) => {
        const dictionary: Dictionary = new Map(entries);
        const text = serializeDictionary(dictionary);
        const parsed = parseDictionary(text);
        expect(parsed).toBeDefined();
        expect(serializeDictionary(parsed!)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});

describe('serializeString', () => {
  it('escapes quotes and backslashes and refuses what a string cannot hold', () => {
    expect(serializeString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(() => serializeString('line\nbreak')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => serializeString('é')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('serializes a dictionary canonically', () => {
    const dictionary: Dictionary = new Map<string, Item | InnerList>([
      [
        'sig1',
        {
          kind: 'inner-list',
          items: [item({ type: 'string', value: '@method' })],
          params: new Map([['created', { type: 'integer', value: 1 }]]),
        },
      ],
      ['flag', item({ type: 'boolean', value: true }, [['p', { type: 'token', value: 'x' }]])],
    ]);
    expect(serializeDictionary(dictionary)).toBe('sig1=("@method");created=1, flag;p=x');
  });
});
