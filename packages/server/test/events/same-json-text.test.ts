/**
 * derivesTo decides whether a decision's event may be stored as '' by comparing two envelopes; sameJsonText must
 * answer exactly what comparing their JSON.stringify texts answers, on any values (member order, undefined members,
 * holes, -0, toJSON, class instances, NaN included).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJsonText } from '../../src/services/events/decision-envelope.ts';

const byText = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const odd = fc.constantFrom<unknown>(undefined, NaN, -0, 0, new Date(0), { toJSON: () => 1 }, () => 1, '1', 1, null);
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    odd,
    fc.array(tie('value')),
    fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value')),
  ),
})).value;

describe('sameJsonText', () => {
  it('agrees with comparing JSON.stringify texts', () => {
    fc.assert(
      fc.property(values, values, (a, b) => {
        expect(sameJsonText(a, b)).toBe(byText(a, b));
        expect(sameJsonText(a, structuredCloneOrSelf(a))).toBe(byText(a, structuredCloneOrSelf(a)));
      }),
      { numRuns: 500 },
    );
  });

  it('tells member order, types and holes apart as the texts do', () => {
    const holed: unknown[] = [1];
    holed[2] = 3;
    const cases: Array<[unknown, unknown]> = [
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      [{ a: 1 }, { a: 1, b: undefined }],
      [
        [1, undefined],
        [1, null],
      ],
      [holed, [1, null, 3]],
      [{ a: -0 }, { a: 0 }],
      ['1', 1],
      [null, 'null'],
      [{ d: new Date(0) }, { d: '1970-01-01T00:00:00.000Z' }],
      [{ n: NaN }, { n: null }],
      [Object.create(null), {}],
    ];
    for (const [a, b] of cases) expect(sameJsonText(a, b)).toBe(byText(a, b));
  });
});

function structuredCloneOrSelf(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? 'null');
  } catch {
    return value;
  }
}
