/**
 * The worked example of docs/policy.md is a real pack: it passes core's validator and its own tests, and a test
 * expecting the wrong outcome fails, so the page cannot teach a pack the server would refuse.
 */
import { readFileSync } from 'node:fs';
import { runPackTests, validateRulePack, type RulePackDocument } from '@aar/core';
import { describe, expect, it } from 'vitest';
import { schemaValidator } from './shipped-content.ts';

const page = readFileSync(new URL('../../../../docs/policy.md', import.meta.url), 'utf8');
const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(page)![1]!) as RulePackDocument;

describe('docs/policy.md worked example', () => {
  it('validates and passes its own tests', () => {
    const validate = schemaValidator('rule_pack');
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(validateRulePack(example)).toEqual([]);
    const report = runPackTests(example, {});
    expect(report).toMatchObject({ passed: 2, failed: 0 });
  });

  it('steps up on Sunday too, and not at 30.00 EUR exactly', () => {
    const [saturday] = example.tests;
    const sunday = structuredClone(saturday!);
    (sunday.context.facts as { local_time: { weekday: number } }).local_time.weekday = 7;
    const atCap = structuredClone(saturday!);
    (atCap.context.request as { amount: { minor: number } }).amount.minor = 3000;
    atCap.expect = { effect: 'none' };
    const report = runPackTests({ ...example, tests: [sunday, atCap] }, {});
    expect(report.results.map((r) => r.passed)).toEqual([true, true]);
  });
});
