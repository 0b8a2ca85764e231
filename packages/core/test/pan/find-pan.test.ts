import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AarError } from '../../src/errors/aar-error.ts';
import { assertNoPan, containsPan, findPan, maskLongDigitRuns } from '../../src/pan/find-pan.ts';
import { luhnValid } from '../../src/pan/luhn.ts';

describe('luhnValid', () => {
  it.each(['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '79927398713', '0'])(
    'accepts %s',
    (digits) => expect(luhnValid(digits)).toBe(true),
  );
  it.each(['4111111111111112', '79927398710', '', '4111 1111 1111 1111', '411111111111111a'])('refuses %j', (digits) =>
    expect(luhnValid(digits)).toBe(false),
  );
});

describe('findPan finds raw card numbers', () => {
  it.each([
    ['a bare string', '4111111111111111', ''],
    ['a number', 4111111111111111, ''],
    ['spaces', { card: '4111 1111 1111 1111' }, '/card'],
    ['dashes', { card: '4111-1111-1111-1111' }, '/card'],
    ['text around it', { note: 'please charge my card 4111111111111111, thanks' }, '/note'],
    ['number and expiry', { note: 'card: 4111 1111 1111 1111 12/27' }, '/note'],
    ['a digit glued to a word before it', { note: 'Order12 4111 1111 1111 1111' }, '/note'],
    [
      'deep in arrays',
      { basket: { items: [{ sku: 'a' }, { tags: [[['x', '5555555555554444']]] }] } },
      '/basket/items/1/tags/0/0/1',
    ],
    ['an integer deep in an object', { a: { b: { c: 378282246310005 } } }, '/a/b/c'],
    ['a negative integer', { n: -4111111111111111 }, '/n'],
    ['19 digits', { pan: '6011000000000000001' }, '/pan'],
    ['12 digits', { pan: '100000000008' }, '/pan'],
    ['an escaped key', { 'a/b': { 'c~d': '4111111111111111' } }, '/a~1b/c~0d'],
    ['digits glued to a word', { note: 'card4111111111111111' }, '/note'],
    ['digits inside a word', { note: 'ref4111111111111111x' }, '/note'],
    ['dots', { note: '4111.1111.1111.1111' }, '/note'],
    ['underscores', { ref: 'pan_4111_1111_1111_1111_end' }, '/ref'],
    [
      'full-width digits',
      { note: '\uff14\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11' },
      '/note',
    ],
    ['full-width digits and separators', { note: '４１１１－１１１１－１１１１－１１１１' }, '/note'],
    ['mathematical digits', { note: '𝟒𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏' }, '/note'],
    ['a full-width key', { '４１１１１１１１１１１１１１１１': true }, ''],
    ['an Amex 4-6-5 with dots', { pan: '3782.822463.10005' }, '/pan'],
  ])('in %s', (_name, value, path) => {
    expect(findPan(value)).toBe(path);
  });

  it('as an object key, naming the object that holds it (never the key)', () => {
    expect(findPan({ cards: { '4111111111111111': { cvv: 'x' } } })).toBe('/cards');
    expect(findPan({ '4111 1111 1111 1111': 1 })).toBe('');
  });

  it('names the first place in document order', () => {
    expect(findPan({ a: ['ok', '4111111111111111'], b: '5555555555554444' })).toBe('/a/1');
  });

  it('survives 10,000-deep nesting and cycles', () => {
    let value: unknown = '4111111111111111';
    for (let i = 0; i < 10_000; i++) value = [value];
    expect(findPan(value)).toBe('/0'.repeat(10_000));
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(findPan(cyclic)).toBeUndefined();
  });

  it('finds every Luhn-valid 12-19 digit number with any separator, glued to letters, in full-width digits', () => {
    const written = fc
      .record({
        digits: luhnValidPan(),
        sep: fc.constantFrom('', ' ', '-', '.', '_', '\u3000', '\uff0d'),
        sizes: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 19, maxLength: 19 }),
        fullWidth: fc.boolean(),
        before: fc.constantFrom('', 'card', 'ref', 'x', 'pan:', 'My card is ', 'Z', 'ns:entity:person:'),
        after: fc.constantFrom('', 'x', 'end', ' exp 12/27', '.', 'Q'),
      })
      .map(({ digits, sep, sizes, fullWidth, before, after }) => {
        // a dotted card number is written in groups of four (3-5 groups): two dotted groups read as a decimal
        const groups = sep === '.' ? (digits.match(/.{1,4}/g) as string[]) : splitBySizes(digits, sizes);
        const text = groups.join(sep);
        return `${before}${fullWidth ? toFullWidth(text) : text}${after}`;
      });
    fc.assert(
      fc.property(written, (text) => {
        expect(findPan({ note: text })).toBe('/note');
      }),
      { numRuns: 500 },
    );
  });

  it('finds every Luhn-valid 12-19 digit number, however it is written', () => {
    const pan = fc
      .tuple(fc.integer({ min: 11, max: 18 }), fc.bigInt({ min: 0n, max: 10n ** 18n }))
      .map(([length, n]) => {
        const body = n.toString().padStart(18, '0').slice(0, length);
        for (let check = 0; check < 10; check++) if (luhnValid(body + check)) return body + check;
        throw new Error('unreachable');
      });
    fc.assert(
      fc.property(
        pan,
        fc.constantFrom('', ' ', '-'),
        fc.constantFrom('', 'card ', 'x: ', '#'),
        (digits, sep, prefix) => {
          const written = sep === '' ? digits : (digits.match(/.{1,4}/g) as string[]).join(sep);
          expect(findPan({ note: `${prefix}${written}.` })).toBe('/note');
        },
      ),
    );
  });
});

describe('findPan allows what is not a card number', () => {
  it.each([
    ['11 digits', '41111111111'],
    ['11-digit number', 41111111111],
    ['Luhn-invalid 16 digits', '4111111111111112'],
    ['Luhn-invalid 16-digit number', 4111111111111112],
    ['20 digits', '41111111111111111113'],
    ['a UUID', 'ns:decision:01890a5d-ac96-774b-bcce-b302099a8057'],
    ['an all-digit-tail UUID', '123e4567-e89b-12d3-4456-426614174000'],
    ['ISO timestamps', '2025-06-01T10:30:00.123456Z 2025-06-01 10:30:00+02:00'],
    ['a hex hash', 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['a float', 4111111111111111.5],
    ['short numbers', { amount: 30, phone: '+33 1 23 45 67 89' }],
  ])('%s', (_name, value) => {
    expect(findPan(value)).toBeUndefined();
  });

  it('passes ordinary Luhn-invalid 12-19 digit ids, whatever surrounds them', () => {
    const id = fc
      .record({
        digits: luhnInvalidNumber(),
        before: fc.constantFrom('', 'order-', 'ord_', 'txn', 'INV/', 'ns:entity:person:user-', 'id '),
        after: fc.constantFrom('', '-a', '_x', 'b', ' ok', '/2'),
        fullWidth: fc.boolean(),
      })
      .map(({ digits, before, after, fullWidth }) => `${before}${fullWidth ? toFullWidth(digits) : digits}${after}`);
    fc.assert(
      fc.property(id, (text) => {
        expect(findPan({ id: text })).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('passes UUIDs, timestamps, dates, amounts, unix seconds, decimals, IPv4 addresses and hex digests', () => {
    const ordinary = fc.oneof(
      fc.uuid(),
      fc.date({ min: new Date(0), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
      fc
        .date({ min: new Date(0), max: new Date('2200-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10)),
      fc.integer({ min: 0, max: 9_999_999_999 }).map((s) => String(s)),
      fc.integer({ min: 0, max: 9_999_999_999 }),
      fc.integer({ min: 1, max: 10 ** 12 }).map((minor) => minor / 100),
      fc.integer({ min: 1, max: 10 ** 12 }).map((minor) => (minor / 100).toFixed(2)),
      fc
        .tuple(fc.integer({ min: 0, max: 9_999_999_999 }), fc.integer({ min: 0, max: 999_999 }))
        .map(([a, b]) => `${a}.${String(b).padStart(6, '0')}`),
      fc.ipV4(),
      fc.constantFrom(32, 40, 64, 128).chain((n) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`))),
    );
    fc.assert(
      fc.property(ordinary, fc.constantFrom('', 'at ', 'id='), (value, label) => {
        expect(findPan({ v: typeof value === 'string' ? `${label}${value}` : value })).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
  });

  it('is false for random UUIDs', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        expect(containsPan(uuid)).toBe(false);
      }),
    );
  });
});

describe('assertNoPan', () => {
  it('throws pan_refused naming the path, never the digits', () => {
    const bodies = [
      { resource: { note: 'pay with 4111 1111 1111 1111' } },
      { cards: { '4111111111111111': true } },
      { ref4111111111111111x: { pan: '5555555555554444' } }, // the key itself is a card number now
    ];
    const paths = ['/resource/note', '/cards', ''];
    bodies.forEach((body, i) => {
      let thrown: unknown;
      try {
        assertNoPan(body);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AarError);
      const error = thrown as AarError;
      expect(error.code).toBe('pan_refused');
      expect(error.errors?.[0]?.path).toBe(paths[i]);
      const everything = JSON.stringify({ message: error.message, errors: error.errors, extra: error.extra });
      expect(everything).not.toMatch(/4111|5555/);
    });
  });

  it('passes a clean body', () => {
    expect(() => assertNoPan({ amount: 30, currency: 'EUR', merchant_id: 'shop-1' })).not.toThrow();
  });
});

function luhnValidPan() {
  return fc.tuple(fc.integer({ min: 11, max: 18 }), fc.bigInt({ min: 0n, max: 10n ** 18n })).map(([length, n]) => {
    const body = n.toString().padStart(18, '0').slice(0, length);
    for (let check = 0; check < 10; check++) if (luhnValid(body + check)) return body + check;
    throw new Error('unreachable');
  });
}

function luhnInvalidNumber() {
  return fc.tuple(fc.integer({ min: 12, max: 19 }), fc.bigInt({ min: 0n, max: 10n ** 19n - 1n })).map(([length, n]) => {
    const digits = n.toString().padStart(19, '0').slice(0, length);
    if (!luhnValid(digits)) return digits;
    return digits.slice(0, -1) + String((Number(digits.at(-1)) + 1) % 10);
  });
}

function splitBySizes(digits: string, sizes: readonly number[]): string[] {
  const groups: string[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= digits.length) break;
    groups.push(digits.slice(at, at + size));
    at += size;
  }
  return groups;
}

function toFullWidth(text: string): string {
  return text.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
}

describe('maskLongDigitRuns', () => {
  it('stars runs of 12 or more digits of any script, and nothing shorter', () => {
    expect(maskLongDigitRuns('/a/4111.1111.1111.1111/b')).toBe('/a/****.****.****.****/b');
    expect(maskLongDigitRuns('４１１１１１１１１１１１')).toBe('************');
    expect(maskLongDigitRuns('/items/12/2026-11-20')).toBe('/items/12/2026-11-20');
  });
});
