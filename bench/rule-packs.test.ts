/**
 * The rule-packs benchmark's plumbing, once through with small numbers (no timing assertions): its packs pass the
 * profile and their own tests with the shipped dictionaries, none matches the benchmark's purchase whatever the hour,
 * and a short alternating run on a real `aar serve` switches the packs through the API, records allows only and
 * carries counters and local time exactly when the facts variant's packs are active.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  dictionarySnapshot,
  rulePaths,
  runPackTests,
  validateRulePack,
  type DictionaryDocument,
  type DictionarySnapshot,
  type RulePackDocument,
} from '@aar/core';
import { PACKS_PER_VARIANT, RULES_PER_PACK, benchPack, quietHours } from './rule-packs/bench-packs.ts';
import { evaluatePackAlone } from './rule-packs/evaluate-alone.ts';
import { alternatingSchedule } from './rule-packs/rule-switch.ts';
import { runVariant } from './rule-packs/run-variant.ts';
import { variantMeasurements, variantNotes } from './rule-packs/summarize.ts';

const dictionaries: Record<string, DictionarySnapshot> = Object.fromEntries(
  ['mcc_family', 'high_risk_jurisdiction', 'jurisdiction_group'].map((name) => [
    name,
    dictionarySnapshot(
      JSON.parse(
        readFileSync(new URL(`../packages/server/policy/dictionaries/${name}.json`, import.meta.url), 'utf8'),
      ) as DictionaryDocument,
    ),
  ]),
);

describe('rule-packs benchmark: the packs', () => {
  const now = new Date('2026-11-28T08:30:00Z');

  it.each(['request', 'facts'] as const)('%s: five valid packs of ten rules whose tests pass', (variant) => {
    for (let i = 1; i <= PACKS_PER_VARIANT; i++) {
      const doc = benchPack(variant, i, now);
      expect(validateRulePack(doc)).toEqual([]);
      expect((doc.rules as unknown[]).length).toBe(RULES_PER_PACK);
      expect(runPackTests(doc as unknown as RulePackDocument, dictionaries)).toMatchObject({ failed: 0, passed: 2 });
      const facts = rulePaths(doc).filter((p) => p.startsWith('facts.counters') || p.startsWith('facts.local_time'));
      // the request variant must not make the service count purchases or compute local time
      if (variant === 'request') expect(facts).toEqual([]);
      else expect(new Set(facts.map((p) => p.split('.')[1]))).toEqual(new Set(['counters', 'local_time']));
    }
  });

  it('the quiet hours never hold at `now` nor in the next hour', () => {
    for (let hour = 0; hour < 24; hour++) {
      const at = new Date(Date.UTC(2026, 10, 28, hour, 59));
      const quiet = quietHours(at);
      expect(quiet).toHaveLength(4);
      expect(quiet).not.toContain(hour);
      expect(quiet).not.toContain((hour + 1) % 24);
    }
  });

  it('no rule matches the benchmark purchase at any hour, and the weapon probe is denied by pack 1', () => {
    for (let hour = 0; hour < 24; hour += 5) {
      const at = new Date(Date.UTC(2026, 10, 29, hour, 10)); // a Sunday: the weekend rules are read
      for (const variant of ['request', 'facts'] as const) {
        for (let i = 1; i <= PACKS_PER_VARIANT; i++) {
          const doc = benchPack(variant, i, at);
          expect(evaluatePackAlone(doc, dictionaries, at, {})).toEqual({ effect: 'none' });
          expect(evaluatePackAlone(doc, dictionaries, at, { weapon: true })).toEqual({
            effect: 'deny',
            reason: `bench_${variant}_${i}.basket_restricted`,
          });
        }
      }
    }
  });
});

describe('rule-packs benchmark: a short run', () => {
  it('alternates 0, 10 and 50 rules over the API and records allows only', async () => {
    const runs = await runVariant('facts', {
      schedule: alternatingSchedule(1),
      round: { connections: 4, amount: 40, maxSeconds: 20, sampleEvery: 1 },
      settleRequests: 8,
      warmupRequests: 20,
    });
    expect(runs.rounds.map((r) => r.rules)).toEqual([0, 10, 50, 50, 10, 0]);
    expect(runs.probe).toEqual({ without: 'allow_with_constraints', with: 'deny/bench_facts_1.basket_restricted' });
    for (const { run } of runs.rounds) {
      expect(run.allowed).toBeGreaterThanOrEqual(40);
      expect(run.recordBytes).toBeGreaterThan(0);
    }
    // the 50-rule snapshot carries five signed packs: the record grows with them
    const bytes = (rules: number) => runs.rounds.find((r) => r.rules === rules)!.run.recordBytes!;
    expect(bytes(50)).toBeGreaterThan(bytes(10));
    expect(bytes(10)).toBeGreaterThan(bytes(0));
    if (process.platform === 'linux') {
      expect(variantMeasurements(runs)).toHaveLength(6);
      expect(variantNotes(runs).join('\n')).toMatch(/ratio to 0 rules \(same run\): 10 rules \d/);
    }
  }, 120_000);
});
