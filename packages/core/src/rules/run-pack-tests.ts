/**
 * A pack's own tests (CONTRACT section 19: publishing refuses a pack whose tests fail): each test's context (its
 * `request` and `facts`, `dict` filled from the pack's declared dictionaries) evaluated by the pack alone, exactly as
 * decide evaluates it, compared with the expected effect and, when given, reason.
 */
import { isRecord } from '../decide/guards.ts';
import { genericOutcome, matchPack, preparePack, purchaseOutcome } from './evaluate-pack.ts';
import { ruleDict } from './rule-context.ts';
import type { DictionarySnapshot, PackTestCase, RulePackDocument } from './types.ts';

export interface PackTestResult {
  name: string;
  passed: boolean;
  actual: { effect: string; reason?: string };
  expected: PackTestCase['expect'];
}

export interface PackTestReport {
  passed: number;
  failed: number;
  results: PackTestResult[];
}

/** Precondition: `doc` passed validateRulePack. Never throws. */
export function runPackTests(doc: RulePackDocument, dictionaries: Record<string, DictionarySnapshot>): PackTestReport {
  const pack = preparePack(doc);
  const dict = ruleDict(doc.dictionaries, dictionaries);
  const results: PackTestResult[] = (Array.isArray(doc.tests) ? doc.tests : []).map((test) => {
    const given = isRecord(test.context) ? test.context : {};
    const context = { request: given.request ?? null, facts: given.facts ?? null, dict };
    const matches = matchPack(pack, context);
    const actual = pack.domain === 'generic' ? genericOutcome(matches) : purchaseOutcome(matches);
    const expected = test.expect;
    const passed =
      isRecord(expected) &&
      actual.effect === expected.effect &&
      (expected.reason === undefined || actual.reason === expected.reason);
    return { name: test.name, passed, actual, expected };
  });
  const passed = results.filter((r) => r.passed).length;
  return { passed, failed: results.length - passed, results };
}
