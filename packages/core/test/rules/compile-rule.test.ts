// The compiled rule evaluator against json-logic-js 2.0.5, its reference: the raw answer (value level, -0 and NaN
// included) or the throw, on every differential vector, on every case of the shared JsonLogic suite inside the
// profile, and on random rules of the profile with random data; then the prepared packs that decide runs.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyRule, checkRuleProfile, evaluateRule, RULE_OPERATORS } from '../../src/index.ts';
import { compileRule, RuleCompileError } from '../../src/rules/compile-rule.ts';
import { matchPack, preparePack } from '../../src/rules/evaluate-pack.ts';
import { readSharedJson } from '../../../../vectors/lib/shared-vectors.ts';
import {
  DIFFERENTIAL_PATH,
  PROFILE_CASES_PATH,
  encodeResult,
} from '../../../../vectors/scripts/generate-jsonlogic-differential.ts';

type Outcome = { threw: true } | { threw: false; value: unknown };

function run(evaluate: () => unknown): Outcome {
  try {
    return { threw: false, value: evaluate() };
  } catch {
    return { threw: true };
  }
}

/** Deep equality where numbers compare with Object.is (-0 is not 0, NaN is NaN) and undefined is not absent. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => same(item, b[i]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => k in b && same((a as never)[k], (b as never)[k]));
  }
  return a === b;
}

/** Where the compiled rule and json-logic-js disagree on `data`, a description; undefined when they agree. */
function disagreement(rule: unknown, data: unknown): string | undefined {
  const reference = run(() => applyRule(rule, structuredClone(data)));
  const compiled = run(() => compileRule(rule)(structuredClone(data)));
  if (reference.threw && compiled.threw) return undefined;
  if (!reference.threw && !compiled.threw && same(reference.value, compiled.value)) return undefined;
  const show = (o: Outcome) => (o.threw ? 'throws' : `returns ${String(JSON.stringify(encodeResult(o.value)))}`);
  return `${JSON.stringify(rule)} on ${JSON.stringify(data)}: json-logic-js ${show(reference)}, compiled ${show(compiled)}`;
}

describe('compileRule against the differential vectors', () => {
  const file = JSON.parse(readFileSync(DIFFERENTIAL_PATH, 'utf8')) as {
    cases: { rule: unknown; data: unknown; result: unknown }[];
  };

  it('returns what json-logic-js returns, and throws where it throws, on every case', () => {
    let errors = 0;
    const wrong: string[] = [];
    for (const c of file.cases) {
      const outcome = run(() => compileRule(c.rule)(c.data));
      if (outcome.threw) errors++;
      // the recorded answer, then json-logic-js's raw value (the encoding folds -0 into 0)
      const recorded = outcome.threw ? { $error: true } : encodeResult(outcome.value);
      if (JSON.stringify(recorded) !== JSON.stringify(c.result)) wrong.push(`recorded: ${JSON.stringify(c)}`);
      const problem = disagreement(c.rule, c.data);
      if (problem !== undefined) wrong.push(problem);
    }
    expect(wrong).toEqual([]);
    expect(errors).toBe(21);
  });
});

describe('compileRule against the shared JsonLogic suite inside the profile', () => {
  const suite = readSharedJson<unknown[]>('jsonlogic', 'tests.json');
  it.skipIf(suite === undefined)("returns the suite's expected result and json-logic-js's on every case", () => {
    const { indexes } = JSON.parse(readFileSync(PROFILE_CASES_PATH, 'utf8')) as { indexes: number[] };
    expect(indexes.length).toBe(240);
    for (const i of indexes) {
      const [rule, data, expected] = suite![i] as [unknown, unknown, unknown];
      expect(checkRuleProfile(rule, '')).toEqual([]);
      expect(compileRule(rule)(data), `shared case ${i}`).toEqual(expected);
      expect(disagreement(rule, data), `shared case ${i}`).toBeUndefined();
    }
  });
});

describe('compileRule on edge values', () => {
  const cases: [unknown, unknown][] = [
    // -0: produced by *, - and %, folded by + (parseFloat of a number's text)
    [{ '*': [-1, 0] }, {}],
    [{ '*': [{ var: 'a' }, 0, 5] }, { a: -3 }],
    [{ '-': [0] }, {}],
    [{ '-': [{ var: 'a' }] }, { a: '' }],
    [{ '%': [-7, 7] }, {}],
    [{ '+': [{ var: 'a' }] }, { a: -0 }],
    [{ '+': [{ var: 'a' }, { var: 'b' }] }, { a: '-0', b: -0 }],
    [{ '+': [{ var: 'a' }, { var: 'b' }] }, { a: '-0', b: '-0' }],
    [{ '*': [{ var: 'a' }, -1] }, { a: -0 }],
    [{ '*': [{ var: 'a' }, { var: 'b' }] }, { a: '-0', b: 3 }],
    [{ '+': [{ var: 'a' }, 1, { var: 'b' }] }, { a: 0.1, b: 0.2 }],
    [{ '+': [{ var: 'a' }, { var: 'b' }] }, { a: 1e21, b: 5e-324 }],
    [{ '+': [{ var: 'a' }, { var: 'b' }] }, { a: ' 12abc', b: [7, 8] }],
    [{ '+': [] }, {}],
    [{ '+': { var: 'a' } }, { a: '3.5' }],
    [{ '*': [] }, {}],
    [{ '*': [{ var: 'a' }] }, { a: '4x' }],
    [{ '*': [{ var: 'a' }, '2'] }, { a: '4x' }],
    [{ min: [] }, {}],
    [{ max: [{ var: 'a' }, 1] }, { a: [] }],
    [{ max: [{ var: 'a' }, 1] }, { a: { valueOf: 1, toString: 2 } }],
    // and/or return operand values; [] is falsy; an empty list is undefined
    [{ and: [1, { var: 'a' }, 2] }, { a: [] }],
    [{ or: [0, { var: 'a' }, ''] }, { a: [] }],
    [{ and: [] }, {}],
    [{ or: [] }, {}],
    [{ '!': [[]] }, {}],
    [{ '!!': [[0]] }, {}],
    [{ '!': [] }, {}],
    // if: pairs, else, nothing left
    [{ if: [] }, {}],
    [{ if: [false, 1] }, {}],
    [{ if: [false, 1, 0, 2] }, {}],
    [{ if: [false, 1, 0, 2, 3] }, {}],
    [{ if: { var: 'a' } }, { a: 7 }],
    // var: dotted paths, defaults (evaluated even when unused), null and undefined data, strings and arrays
    [{ var: ['a.b.c', { '*': [2, 3] }] }, { a: { b: { c: 0 } } }],
    [{ var: ['a.b.c', { '*': [2, 3] }] }, { a: { b: null } }],
    [{ var: ['a', { '*': [] }] }, { a: 1 }],
    [{ var: ['a', null] }, { a: null }],
    [{ var: 'a.1' }, { a: 'xyz' }],
    [{ var: 1 }, ['p', 'q']],
    [{ var: '' }, null],
    [{ var: ['', 5] }, undefined],
    [{ var: 'a' }, undefined],
    [{ var: 'a.b' }, { a: false }],
    [{ var: ['a.b', 'dflt'] }, { a: 'str' }],
    // missing / missing_some
    [{ missing: ['a', 'b.c', '', 0] }, { a: '', b: { c: null } }],
    [{ missing: [['a', 'b']] }, { b: 0 }],
    [{ missing: [] }, {}],
    [{ missing: '' }, ''],
    [{ missing_some: [1, ['a', 'b']] }, { b: 1 }],
    [{ missing_some: [2, ['a', 'b']] }, { b: 1 }],
    [{ missing_some: [{ var: 'n' }, ['a', 'b']] }, { n: '1', a: 1 }],
    [{ missing_some: [{ '*': [] }, ['a']] }, { a: 1 }],
    // comparisons: coercions, the between form, extra arguments evaluated
    [{ '<': [1, { var: 'a' }, 3] }, { a: '2' }],
    [{ '<': [1, 5, { var: 'absent.x' }] }, {}],
    [{ '<': [1, 2, { var: '' }] }, undefined],
    [{ '<=': [3, 2, { var: 'a' }] }, { a: { toString: 1, valueOf: 2 } }],
    [{ '<=': [1, 2, { var: 'a' }] }, { a: { toString: 1, valueOf: 2 } }],
    [{ '>': [{ var: 'a' }, 2] }, { a: [3] }],
    [{ '===': [1, 1, { '*': [] }] }, {}],
    [{ '===': [[1], [1]] }, {}],
    [{ '===': [{ var: 'a' }, { var: 'a' }] }, { a: [1] }],
    [{ '!==': [{ var: 'a' }] }, { a: 1 }],
    // in, cat, substr, merge
    [{ in: ['b', { var: 'a' }] }, { a: 'abc' }],
    [{ in: [1, { var: 'a' }] }, { a: ['1', 1] }],
    [{ in: [1, { var: 'a' }] }, { a: { indexOf: 3 } }],
    [{ in: [1, { var: 'a' }] }, { a: 12 }],
    [{ in: ['x', ['x', 'y']] }, {}],
    [{ in: [[1], [[1]]] }, {}],
    [{ in: 'a' }, {}],
    [{ cat: [null, 1, [2, [3, null]], { var: 'absent' }, true] }, {}],
    [{ cat: [{ var: 'a' }] }, { a: { toString: 'x' } }],
    [{ substr: ['abcdef', -4, -1] }, {}],
    [{ substr: [{ var: 'a' }, 1] }, { a: 12345 }],
    [{ substr: ['abcdef', '2', '2'] }, {}],
    [{ merge: [1, [2, [3]], { var: 'a' }, null] }, { a: [4] }],
    // some / all / none: scoping, empty arrays, non-arrays
    [{ all: [[], true] }, {}],
    [{ none: [[], true] }, {}],
    [{ some: [{ var: 'a' }, true] }, { a: 'xyz' }],
    [{ all: [{ var: 'a' }, { var: 'x' }] }, { a: [{ x: 1 }, { x: [] }] }],
    [{ some: [{ var: 'a' }, { '>': [{ var: '' }, { var: 'a' }] }] }, { a: [1, 2] }],
    [{ none: [{ var: 'a' }, { in: [{ var: '' }, 'abc'] }] }, { a: ['z', 'b'] }],
    [{ some: [[1, 2], { '*': [] }] }, {}],
    [{ some: [[], { '*': [] }] }, {}],
  ];

  it.each(cases.map((c, i) => [i, ...c] as const))('case %i: %j on %j', (_i, rule, data) => {
    expect(checkRuleProfile(rule, '')).toEqual([]);
    expect(disagreement(rule, data)).toBeUndefined();
  });

  it('returns a fresh array on every call, as json-logic-js does', () => {
    const rule = { if: [true, [1, [2]], 0] };
    const evaluate = compileRule(rule);
    const first = evaluate({}) as unknown[];
    first.push(3);
    (first[1] as unknown[]).push(4);
    expect(evaluate({})).toEqual([1, [2]]);
    expect(evaluate({})).not.toBe(evaluate({}));
  });

  it('refuses what the profile refuses (the caller then evaluates with json-logic-js)', () => {
    for (const rule of [
      { '==': [1, 1] },
      { '/': [1, 2] },
      { log: 1 },
      { 'Math.min': [1] },
      { toString: [] },
      JSON.parse('{"__proto__": []}') as unknown,
      { map: [[1], 1] },
      { var: { var: 'a' } },
      { missing: [{ var: 'a' }] },
      { missing_some: [1, { var: 'a' }] },
      { and: [{ '?:': [1, 2, 3] }] },
    ]) {
      expect(() => compileRule(rule), JSON.stringify(rule)).toThrow(RuleCompileError);
    }
  });
});

// Random rules of the profile: every operator with any arity and any argument shape, literals and data paths that
// hit, miss, cross arrays and strings; random data with numeric strings, -0, fractions and own toString/valueOf/indexOf.
const KEYS = ['a', 'b', 'x', '0', '1', 'n'] as const;
const STRINGS = [
  '',
  'a',
  'ab',
  '0',
  '-0',
  '1',
  '-1',
  '1.5',
  ' 3 ',
  '0x10',
  '1e3',
  'Infinity',
  'NaN',
  'true',
  'a,b',
  'é',
];

const scalarData = fc.oneof(
  fc.integer({ min: -12, max: 12 }),
  fc.constantFrom(-0, 0.5, -2.25, 1e21, 9007199254740992, 5e-324),
  fc.constantFrom(...STRINGS),
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constant(null),
);
const { data: dataArb } = fc.letrec((tie) => ({
  data: fc.oneof({ depthSize: 'small', maxDepth: 3 }, scalarData, tie('array'), tie('object')),
  array: fc.array(tie('data'), { maxLength: 4 }),
  object: fc.oneof(
    { weight: 9, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), tie('data'), { maxKeys: 5 }) },
    {
      weight: 1,
      arbitrary: fc.record({ [KEYS[0]]: tie('data'), member: fc.constantFrom('toString', 'valueOf', 'indexOf') }),
    },
  ),
}));
// an own toString/valueOf/indexOf member (JSON.parse makes them own data properties)
const withMembers = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withMembers);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (k !== 'member') out[k] = withMembers(v);
  if (typeof record.member === 'string') out[record.member] = 1;
  return out;
};

const path = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 3 }).map((s) => s.join('.')) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1) },
);
const literal = fc.oneof(
  fc.integer({ min: -10, max: 10 }),
  fc.constantFrom(...STRINGS),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(...STRINGS)), { maxLength: 3 }),
);
const ORDINARY = RULE_OPERATORS.filter((op) => !['var', 'missing', 'missing_some', 'some', 'all', 'none'].includes(op));

function exprArb(depth: number): fc.Arbitrary<unknown> {
  const varExpr = (sub: fc.Arbitrary<unknown>) =>
    fc.oneof(
      path.map((p) => ({ var: p })),
      path.map((p) => ({ var: [p] })),
      fc.tuple(path, sub).map(([p, d]) => ({ var: [p, d] })),
    );
  const leaves = fc.oneof(literal, varExpr(literal));
  if (depth === 0) return leaves;
  const sub = exprArb(depth - 1);
  const paths = fc.array(path, { maxLength: 3 });
  return fc.oneof(
    { weight: 2, arbitrary: leaves },
    { weight: 1, arbitrary: varExpr(sub) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        path.map((p) => ({ missing: p })),
        paths.map((p) => ({ missing: p })),
        paths.map((p) => ({ missing: [p] })),
        fc.tuple(sub, paths).map(([n, p]) => ({ missing_some: [n, p] })),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('some', 'all', 'none'), fc.oneof(sub, fc.array(sub, { maxLength: 3 })), sub)
        .map(([op, items, body]) => ({ [op]: [items, body] })),
    },
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...ORDINARY), fc.oneof({ weight: 4, arbitrary: fc.array(sub, { maxLength: 4 }) }, sub))
        .map(([op, args]) => ({ [op]: args })),
    },
  );
}

describe('compileRule on random rules of the profile', () => {
  it('equals json-logic-js (value or throw) on random data', () => {
    fc.assert(
      fc.property(exprArb(3), dataArb, (rule, raw) => {
        expect(checkRuleProfile(rule, '')).toEqual([]);
        const data = withMembers(raw);
        expect(disagreement(rule, data)).toBeUndefined();
      }),
      { numRuns: 2000, seed: 27 },
    );
  });
});

describe('prepared packs run the compiled rules', () => {
  const rules = [
    { '>': [{ var: 'request.amount.minor' }, 500] },
    { in: [{ var: 'request.currency' }, ['EUR', 'USD']] },
    { some: [{ var: 'request.items' }, { '===': [{ var: 'category' }, 'weapons'] }] },
    { cat: [{ var: 'request.label' }] },
    { '==': [1, 1] },
  ];
  const doc = {
    domain: 'purchase',
    rules: rules.map((when, i) => ({ rule_id: `r${i}`, effect: 'deny', reason: `p.r${i}`, when })),
  };

  it('compiles every rule inside the profile once and none outside it', () => {
    const pack = preparePack(doc);
    expect(pack).toBe(preparePack(doc));
    expect(pack.rules.map((r) => [r.inProfile, typeof r.evaluate])).toEqual([
      [true, 'function'],
      [true, 'function'],
      [true, 'function'],
      [true, 'function'],
      [false, 'undefined'],
    ]);
  });

  it('matches as json-logic-js does, failing closed on a throw and outside the profile', () => {
    const pack = preparePack(doc);
    const contexts = [
      { request: { amount: { minor: 900 }, currency: 'GBP', items: [{ category: 'food' }], label: '' } },
      { request: { amount: { minor: 100 }, currency: 'EUR', items: [{ category: 'weapons' }], label: 'x' } },
      // an own toString that is not a function: `cat` throws, the deny rule matches with an error
      { request: { amount: { minor: '1000' }, currency: 'USD', items: [], label: { toString: 1 } } },
      {},
    ];
    for (const context of contexts) {
      const expected = pack.rules
        .map((rule) => ({ rule, evaluation: rule.inProfile ? evaluateRule(rule.when, context) : undefined }))
        .filter((e) => e.evaluation === undefined || e.evaluation.matched)
        .map((e) => (e.evaluation === undefined || e.evaluation.error ? `${e.rule.rule_id}!` : e.rule.rule_id));
      const got = matchPack(pack, context).map((m) => (m.error ? `${m.rule.rule_id}!` : m.rule.rule_id));
      expect(got).toEqual(expected);
    }
    expect(matchPack(pack, contexts[2]).map((m) => [m.rule.rule_id, m.error])).toEqual([
      ['r0', undefined],
      ['r1', undefined],
      ['r3', true],
      ['r4', true],
    ]);
  });
});
