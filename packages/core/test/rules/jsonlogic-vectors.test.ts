// The rule evaluator against json-logic-js's own answers: our 5,000 seeded differential cases (regenerated here and
// compared byte for byte with the committed file the Python and Go evaluators walk) and every case of the shared
// JsonLogic suite inside the profile (the committed index list, whose count all three runtimes assert).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyRule, checkRuleProfile, evaluateRule, ruleTruthy } from '../../src/index.ts';
import { readSharedJson } from '../../../../vectors/lib/shared-vectors.ts';
import {
  DIFFERENTIAL_COUNT,
  DIFFERENTIAL_PATH,
  PROFILE_CASES_PATH,
  encodeResult,
  formatDifferential,
  formatProfileCases,
  generateDifferential,
  generateProfileCases,
} from '../../../../vectors/scripts/generate-jsonlogic-differential.ts';

/** The shared suite's cases inside the profile: asserted by the TypeScript, Python and Go suites alike. */
const PROFILE_CASE_COUNT = 240;

type Case = { rule: unknown; data: unknown; result: unknown };

describe('jsonlogic differential vectors', () => {
  const committed = readFileSync(DIFFERENTIAL_PATH, 'utf8');

  it('regenerate byte for byte', () => {
    expect(formatDifferential(generateDifferential())).toBe(committed);
  });

  it(`hold ${DIFFERENTIAL_COUNT} cases inside the profile that evaluate to the recorded result`, () => {
    const file = JSON.parse(committed) as { count: number; cases: Case[] };
    expect(file.count).toBe(DIFFERENTIAL_COUNT);
    expect(file.cases).toHaveLength(DIFFERENTIAL_COUNT);
    let errors = 0;
    for (const c of file.cases) {
      expect(checkRuleProfile(c.rule, '')).toEqual([]);
      const evaluation = evaluateRule(c.rule, c.data);
      if (isError(c.result)) {
        errors++;
        expect(evaluation).toEqual({ matched: true, error: true });
        continue;
      }
      expect(encodeResult(applyRule(c.rule, c.data))).toEqual(c.result);
      expect(evaluation).toEqual({ matched: ruleTruthy(decode(c.result)) });
    }
    // some cases exercise the fail-closed path (an own `toString` / `indexOf` member in the data)
    expect(errors).toBeGreaterThan(0);
  });
});

describe('the shared JsonLogic suite inside the profile', () => {
  const suite = readSharedJson<unknown[]>('jsonlogic', 'tests.json');
  it.skipIf(suite === undefined)('lists the same cases as the committed index file', () => {
    const generated = generateProfileCases()!;
    expect(formatProfileCases(generated)).toBe(readFileSync(PROFILE_CASES_PATH, 'utf8'));
    expect(generated.count).toBe(PROFILE_CASE_COUNT);
    expect(generated.indexes).toHaveLength(PROFILE_CASE_COUNT);
  });

  it.skipIf(suite === undefined)("evaluates every case inside the profile to the suite's expected result", () => {
    const { indexes } = JSON.parse(readFileSync(PROFILE_CASES_PATH, 'utf8')) as { indexes: number[] };
    for (const i of indexes) {
      const [rule, data, expected] = suite![i] as [unknown, unknown, unknown];
      expect(applyRule(rule, data), `shared case ${i}`).toEqual(expected);
      expect(evaluateRule(rule, data)).toEqual({ matched: ruleTruthy(expected) });
    }
  });
});

function isError(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { $error?: unknown }).$error === true;
}

/** Enough decoding to take the truthiness of an encoded result. */
function decode(result: unknown): unknown {
  if (Array.isArray(result)) return result;
  if (typeof result === 'object' && result !== null) {
    const r = result as Record<string, unknown>;
    if (r.$undefined === true) return undefined;
    if (r.$number === 'NaN') return NaN;
    if (typeof r.$number === 'string') return Number(r.$number);
  }
  return result;
}
