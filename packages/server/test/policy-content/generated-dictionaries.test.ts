/**
 * No drift: every dictionary that mirrors a closed list of the service is exactly what
 * scripts/generate-dictionaries.ts derives from the code today. A reason code, event type, currency or role added to
 * the code without regenerating fails here, naming the dictionary (fix: run the script, review the diff).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { controlTermCode, DICTIONARY_FOLDER, generatedDictionaries } from '../../scripts/generate-dictionaries.ts';

const generated = generatedDictionaries();

describe('generated dictionaries', () => {
  it.each(generated.map((d) => [d.dictionary_id, d] as const))('%s equals the committed file', (id, doc) => {
    const name = id.slice('ns:dictionary:'.length);
    const committed: unknown = JSON.parse(readFileSync(new URL(`${name}.json`, DICTIONARY_FOLDER), 'utf8'));
    expect(
      committed,
      `regenerate: node --conditions=aar-source --import tsx packages/server/scripts/generate-dictionaries.ts`,
    ).toEqual(doc);
  });

  it('generates every closed list CONTRACT section 19 names', () => {
    expect(generated.map((d) => d.dictionary_id.slice('ns:dictionary:'.length))).toEqual([
      'capability',
      'compliance_control',
      'compliance_framework',
      'connector_type',
      'country',
      'currency',
      'event_type',
      'grant_state',
      'obligation_type',
      'reason_code',
      'risk_level',
      'role',
      'side_effect_level',
      'signing_profile',
      'stop_condition',
    ]);
  });

  it('a reason code carries the decision and check decide gives it, and its meaning', () => {
    const reasons = generated.find((d) => d.dictionary_id === 'ns:dictionary:reason_code')!;
    expect(reasons.terms.find((t) => t.code === 'risk_state_elevated')).toMatchObject({
      decision: 'require_approval',
      check: 'risk',
      meaning: expect.stringMatching(/elevated/),
    });
  });

  it('control term codes are readable slugs, unique per framework', () => {
    expect(controlTermCode('psd3', 'PSR Art. 85')).toBe('psd3:psr_art_85');
    expect(controlTermCode('eu_ai_act', 'Art. 14(4)(d)')).toBe('eu_ai_act:art_14_4_d');
  });
});
