/**
 * Differential cases for the rule evaluators (TypeScript json-logic-js, Python, Go): 5,000 rules inside the profile
 * `aar-jsonlogic/1`, each with random data, made with a seeded PRNG (mulberry32: the same file on every run), and
 * json-logic-js 2.0.5's answer. Coercions are where ports disagree, so the data mixes integers, numeric and
 * non-numeric strings (`"0x10"`, `" 3 "`, `"1e3"`, `""`), booleans, null, arrays, nested objects, absent paths, and
 * rarely an object with its own `toString`/`indexOf` member (JS then throws: the case records `{"$error": true}`).
 *
 * Result encoding (JSON cannot hold every JS value): NaN / Infinity / -Infinity as `{"$number": "NaN"}` etc.,
 * `undefined` as `{"$undefined": true}`, a throw as `{"$error": true}`, recursively inside arrays and objects.
 *
 * Also writes `vectors/jsonlogic-profile-cases.json`: the index (in the top-level array, comments counted) of every
 * case of the shared suite `../shared/vectors/jsonlogic/tests.json` whose rule is inside the profile.
 *
 *   node --import tsx vectors/scripts/generate-jsonlogic-differential.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyRule } from '../../packages/core/src/rules/evaluate-rule.ts';
import { checkRuleProfile } from '../../packages/core/src/rules/profile.ts';
import { readSharedJson } from '../lib/shared-vectors.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const DIFFERENTIAL_SEED = 20270427;
export const DIFFERENTIAL_COUNT = 5000;
export const GENERATOR = 'vectors/scripts/generate-jsonlogic-differential.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
export const DIFFERENTIAL_PATH = join(here, '..', 'jsonlogic-differential.json');
export const PROFILE_CASES_PATH = join(here, '..', 'jsonlogic-profile-cases.json');

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON for any JS value json-logic-js may return (see the header). */
export function encodeResult(value: unknown): Json {
  if (value === undefined) return { $undefined: true };
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return { $number: 'NaN' };
    if (value === Infinity) return { $number: 'Infinity' };
    if (value === -Infinity) return { $number: '-Infinity' };
    return value === 0 ? 0 : value; // -0 is not observable through the profile's operators
  }
  if (Array.isArray(value)) return Array.from(value, encodeResult);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [key, member] of Object.entries(value)) out[key] = encodeResult(member);
    return out;
  }
  return value;
}

/** json-logic-js's encoded answer, `{"$error": true}` when it throws. */
export function encodedAnswer(rule: unknown, data: unknown): Json {
  try {
    return encodeResult(applyRule(rule, data));
  } catch {
    return { $error: true };
  }
}

export function generateDifferential(): { generator: string; seed: number; count: number; cases: Json[] } {
  const rand = mulberry32(DIFFERENTIAL_SEED);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const chance = (p: number) => rand() < p;

  const INTS = [0, 1, 2, 3, 5, 7, 10, 12, 100, -1, -2, -7, 9007199254740991, -9007199254740991, 4294967296];
  const STRINGS = ['', 'a', 'abc', 'Hello', '0', '1', '2', '10', '-1', '1.5', ' 3 ', '0x10', '1e3', 'Infinity', 'NaN',
    'true', 'null', 'a,b', '[object Object]', 'é€', 'DE', 'US', '5411'];
  const scalar = (): Json => {
    const r = rand();
    if (r < 0.4) return pick(INTS);
    if (r < 0.8) return pick(STRINGS);
    if (r < 0.92) return chance(0.5);
    return null;
  };
  const array = (depth: number): Json[] => {
    const r = rand();
    if (r < 0.15) return [];
    if (r < 0.4) return Array.from({ length: int(1, 4) }, () => pick(INTS));
    if (r < 0.55) return Array.from({ length: int(1, 4) }, () => pick(STRINGS));
    if (r < 0.8 && depth < 3) return Array.from({ length: int(1, 4) }, () => object(depth + 1));
    return Array.from({ length: int(1, 4) }, () => value(depth + 1));
  };
  const object = (depth: number): Json => {
    const out: Record<string, Json> = {};
    if (chance(0.85)) out.x = depth < 3 && chance(0.2) ? value(depth + 1) : scalar();
    if (chance(0.6)) out.y = scalar();
    if (depth < 3 && chance(0.3)) out.deep = { z: scalar() };
    // own members that JS's ToPrimitive / `in` would call: JS throws, ports must too (rare)
    if (chance(0.03)) out.toString = scalar();
    if (chance(0.03)) out.indexOf = scalar();
    if (chance(0.03)) out.valueOf = scalar();
    return out;
  };
  function value(depth: number): Json {
    const r = rand();
    if (depth >= 3 || r < 0.6) return scalar();
    if (r < 0.85) return array(depth);
    return object(depth);
  }
  const data = (): Json => {
    const out: Record<string, Json> = {};
    const put = (key: string, make: () => Json) => {
      if (chance(0.85)) out[key] = make();
    };
    put('a', scalar);
    put('b', scalar);
    put('n', () => pick(INTS));
    put('s', () => pick(STRINGS));
    put('flag', () => chance(0.5));
    put('nil', () => null);
    put('arr', () => array(1));
    put('nums', () => Array.from({ length: int(0, 5) }, () => pick(INTS)));
    put('strs', () => Array.from({ length: int(0, 4) }, () => pick(STRINGS)));
    put('objs', () => Array.from({ length: int(0, 4) }, () => object(2)));
    put('obj', () => object(1));
    return out;
  };

  const PATHS = ['a', 'b', 'n', 's', 'flag', 'nil', 'arr', 'nums', 'strs', 'objs', 'obj', 'obj.x', 'obj.y',
    'obj.deep', 'obj.deep.z', 'obj.x.x', 'absent', 'obj.absent', 'arr.0', 'arr.1', 'nums.0', 'nums.3', 's.0', 's.1',
    'objs.0', 'objs.1.x', 'a.b', 'n.x', ''];
  const SCOPED_PATHS = ['', 'x', 'y', 'deep.z', '0', 'absent'];
  const literal = (): Json => {
    const r = rand();
    if (r < 0.45) return pick(INTS);
    if (r < 0.8) return pick(STRINGS);
    if (r < 0.9) return chance(0.5);
    if (r < 0.95) return null;
    return Array.from({ length: int(0, 3) }, () => (chance(0.5) ? pick(INTS) : pick(STRINGS)));
  };
  const varOf = (scoped: boolean): Json => {
    const path = pick(scoped ? SCOPED_PATHS : PATHS);
    const r = rand();
    if (r < 0.6) return { var: path };
    if (r < 0.75) return { var: [path] };
    return { var: [path, literal()] };
  };
  const pathList = (scoped: boolean) => Array.from({ length: int(1, 3) }, () => pick(scoped ? SCOPED_PATHS : PATHS));
  const args = (n: number, depth: number, scoped: boolean) => Array.from({ length: n }, () => expr(depth + 1, scoped));
  const arrayExpr = (depth: number, scoped: boolean): Json => {
    const r = rand();
    if (r < 0.5) return { var: scoped ? pick(['', 'x', 'deep']) : pick(['arr', 'nums', 'strs', 'objs', 'obj', 's', 'absent']) };
    if (r < 0.7) return Array.from({ length: int(0, 4) }, () => literal());
    if (r < 0.85) return { merge: args(int(1, 3), depth, scoped) };
    return expr(depth + 1, scoped);
  };
  const scopedRule = (depth: number): Json => {
    const r = rand();
    const el = () => varOf(true);
    if (r < 0.25) return { [pick(['<', '<=', '>', '>=', '===', '!=='])]: [el(), literal()] };
    if (r < 0.4) return { in: [literal(), el()] };
    if (r < 0.5) return el();
    if (r < 0.6) return { '!': el() };
    return expr(depth + 1, true);
  };

  function operation(op: string, depth: number, scoped: boolean): Json {
    switch (op) {
      case 'var':
        return varOf(scoped);
      case 'missing': {
        const r = rand();
        if (r < 0.3) return { missing: pick(scoped ? SCOPED_PATHS : PATHS) };
        if (r < 0.7) return { missing: pathList(scoped) };
        return { missing: [pathList(scoped)] };
      }
      case 'missing_some':
        return { missing_some: [chance(0.8) ? int(0, 3) : expr(depth + 1, scoped), pathList(scoped)] };
      case 'if':
        return { if: args(int(0, 5), depth, scoped) };
      case '===':
      case '!==':
      case '>':
      case '>=':
        return { [op]: args(2, depth, scoped) };
      case '<':
      case '<=':
        return { [op]: args(chance(0.25) ? 3 : 2, depth, scoped) };
      case '!':
      case '!!':
        return { [op]: chance(0.5) ? expr(depth + 1, scoped) : args(1, depth, scoped) };
      case 'or':
      case 'and':
        return { [op]: args(int(chance(0.05) ? 0 : 1, 4), depth, scoped) };
      case 'in':
        return { in: [expr(depth + 1, scoped), chance(0.5) ? arrayExpr(depth, scoped) : expr(depth + 1, scoped)] };
      case 'cat':
        return { cat: chance(0.1) ? expr(depth + 1, scoped) : args(int(0, 4), depth, scoped) };
      case 'substr': {
        const a: Json[] = [expr(depth + 1, scoped), chance(0.8) ? int(-6, 6) : expr(depth + 1, scoped)];
        if (chance(0.6)) a.push(chance(0.8) ? int(-6, 6) : expr(depth + 1, scoped));
        return { substr: a };
      }
      case 'some':
      case 'all':
      case 'none':
        return { [op]: [arrayExpr(depth, scoped), scopedRule(depth + 1)] };
      case 'merge':
        return { merge: Array.from({ length: int(0, 4) }, () => (chance(0.5) ? arrayExpr(depth, scoped) : expr(depth + 1, scoped))) };
      case 'min':
      case 'max':
        return { [op]: args(int(0, 4), depth, scoped) };
      case '+':
        return { '+': chance(0.1) ? expr(depth + 1, scoped) : args(int(0, 4), depth, scoped) };
      case '-':
        return { '-': args(int(1, 2), depth, scoped) };
      case '*':
        return { '*': args(int(1, 4), depth, scoped) };
      case '%':
        return { '%': args(2, depth, scoped) };
      default:
        throw new Error(`no generator for ${op}`);
    }
  }
  const OPS = ['var', 'missing', 'missing_some', 'if', '===', '!==', '!', '!!', 'or', 'and', '<', '<=', '>', '>=', 'in',
    'cat', 'substr', 'some', 'all', 'none', 'merge', 'min', 'max', '+', '-', '*', '%'];
  function expr(depth: number, scoped: boolean): Json {
    if (depth >= 4 || (depth > 0 && chance(0.35))) return chance(0.55) ? varOf(scoped) : literal();
    return operation(pick(OPS), depth, scoped);
  }

  // Coercion-heavy templates: each slot is filled with a random data path or literal.
  const slot = () => (chance(0.6) ? varOf(false) : literal());
  const TEMPLATES: (() => Json)[] = [
    () => ({ [pick(['<', '<=', '>', '>='])]: [{ var: pick(['s', 'a', 'b']) }, pick(INTS)] }),
    () => ({ [pick(['<', '>'])]: [pick(STRINGS), { var: pick(['n', 'a', 's']) }] }),
    () => ({ '+': [{ var: pick(['s', 'a', 'strs']) }, pick(STRINGS), slot()] }),
    () => ({ '*': [pick(STRINGS), slot()] }),
    () => ({ cat: [pick(INTS), { var: pick(['arr', 'nums', 'nil', 'absent', 'obj', 'flag']) }, slot()] }),
    () => ({ in: [slot(), { var: pick(['s', 'strs', 'nums', 'arr', 'obj', 'n']) }] }),
    () => ({ in: [pick(STRINGS), pick(STRINGS)] }),
    () => ({ substr: [slot(), int(-6, 6), int(-6, 6)] }),
    () => ({ substr: [{ var: 's' }, int(-6, 6)] }),
    () => ({ merge: [{ var: pick(['arr', 'nums', 'nil']) }, slot(), [slot(), slot()]] }),
    () => ({ [pick(['min', 'max'])]: [slot(), slot(), { var: pick(['nums', 'arr', 's', 'flag', 'nil']) }] }),
    () => ({ '%': [slot(), pick([0, 0, 3, -3, -7, 7, 2])] }),
    () => ({ '%': [pick([-7, 7, -1, 0]), slot()] }),
    () => ({ '-': [slot()] }),
    () => ({ missing_some: [int(0, 3), pathList(false)] }),
    () => ({ [pick(['some', 'all', 'none'])]: [{ var: 'objs' }, { [pick(['>', '===', '<='])]: [{ var: pick(['x', 'y', 'deep.z']) }, slot()] }] }),
    () => ({ [pick(['some', 'all', 'none'])]: [{ var: pick(['nums', 'strs', 'arr']) }, { [pick(['>=', '!==', 'in'])]: [{ var: '' }, slot()] }] }),
    () => ({ if: [slot(), slot(), slot(), slot(), slot()] }),
    () => ({ [pick(['===', '!=='])]: [{ var: pick(['arr', 'obj', 'nil', 'n']) }, { var: pick(['arr', 'obj', 'nil', 'n']) }] }),
    () => ({ '!!': [{ var: pick(['arr', 'nums', 'strs', 's', 'obj', 'nil', 'n']) }] }),
  ];

  const cases: Json[] = [];
  while (cases.length < DIFFERENTIAL_COUNT) {
    const rule = chance(0.3) ? pick(TEMPLATES)() : expr(0, false);
    const problems = checkRuleProfile(rule, '');
    if (problems.length > 0) throw new Error(`generated rule outside the profile: ${JSON.stringify(problems)}`);
    const d = data();
    cases.push({ rule, data: d, result: encodedAnswer(rule, d) });
  }
  return { generator: GENERATOR, seed: DIFFERENTIAL_SEED, count: cases.length, cases };
}

/** The shared suite's indexes whose rule is inside the profile, or undefined when the suite is absent. */
export function generateProfileCases(): { generator: string; source: string; count: number; indexes: number[] } | undefined {
  const suite = readSharedJson<unknown[]>('jsonlogic', 'tests.json');
  if (suite === undefined) return undefined;
  const indexes: number[] = [];
  suite.forEach((entry, i) => {
    if (Array.isArray(entry) && checkRuleProfile(entry[0], '').length === 0) indexes.push(i);
  });
  return { generator: GENERATOR, source: 'jsonlogic/tests.json', count: indexes.length, indexes };
}

/** One case per line: diffs stay readable and the file loads as plain JSON. */
export function formatDifferential(file: ReturnType<typeof generateDifferential>): string {
  const head = JSON.stringify({ generator: file.generator, seed: file.seed, count: file.count });
  return `${head.slice(0, -1)},"cases":[\n${file.cases.map((c) => JSON.stringify(c)).join(',\n')}\n]}\n`;
}

export function formatProfileCases(file: NonNullable<ReturnType<typeof generateProfileCases>>): string {
  return `${JSON.stringify(file)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(DIFFERENTIAL_PATH, formatDifferential(generateDifferential()));
  const profile = generateProfileCases();
  if (profile === undefined) throw new Error('the shared JsonLogic suite is needed to write jsonlogic-profile-cases.json');
  writeFileSync(PROFILE_CASES_PATH, formatProfileCases(profile));
  console.log(`wrote ${DIFFERENTIAL_PATH} and ${PROFILE_CASES_PATH} (${profile.count} shared cases inside the profile)`);
}
