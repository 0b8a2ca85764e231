/**
 * What one benchmark pack alone decides for the benchmark's purchase at an instant, through core's own pack-test
 * runner (the code decide evaluates packs with): used by the smoke test to show no rule matches the purchase.
 */
import { runPackTests, type DictionarySnapshot, type RulePackDocument } from '@aar/core';
import { benchContext } from './bench-packs.ts';

export function evaluatePackAlone(
  doc: Record<string, unknown>,
  dictionaries: Record<string, DictionarySnapshot>,
  at: Date,
  change: Parameters<typeof benchContext>[1],
): { effect: string; reason?: string } {
  const probe = { ...doc, tests: [{ name: 'probe', context: benchContext(at, change), expect: { effect: 'none' } }] };
  return runPackTests(probe as unknown as RulePackDocument, dictionaries).results[0]!.actual;
}
