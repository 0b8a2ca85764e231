/**
 * Every shipped policy document (rule packs, dictionaries, sector packs, and the compliance mappings that are rule
 * packs too) validates against its JSON Schema AND core's validator, every reference it makes resolves to a shipped
 * document, and every rule pack's own tests pass under core's runPackTests (the evaluator decide uses). What a user
 * notices: the server seeds these files as published, signed packs; one that failed here would be refused at seed.
 */
import {
  dictionarySnapshot,
  runPackTests,
  validateDictionary,
  validateRulePack,
  validateSectorPack,
  type DictionarySnapshot,
  type KnownPolicyTerms,
} from '@aar/core';
import { describe, expect, it } from 'vitest';
import { parseGrantScope } from '../../src/services/grants/grant-scope.ts';
import {
  complianceMappings,
  parseRef,
  schemaValidator,
  shippedDictionaries,
  shippedRulePacks,
  shippedSectorPacks,
} from './shipped-content.ts';

const packs = shippedRulePacks();
const dictionaries = shippedDictionaries();
const sectors = shippedSectorPacks();
const mappings = complianceMappings();

const snapshots: Record<string, DictionarySnapshot> = Object.fromEntries(
  dictionaries.map((d) => [d.name, dictionarySnapshot(d.doc)]),
);
const dictionaryRefs = new Set(dictionaries.map((d) => `${d.doc.dictionary_id}@${d.doc.version}`));
const packRefs = new Set(packs.map((p) => `${p.doc.pack_id}@${p.doc.version}`));
const codesOf = (name: string) => new Set(snapshots[name]?.codes ?? []);
const known: KnownPolicyTerms = {
  dictionaries: dictionaryRefs,
  rulePacks: packRefs,
  obligationTypes: codesOf('obligation_type'),
  stopConditions: codesOf('stop_condition'),
  taxonomy: codesOf('rule_taxonomy'),
};

const schemaErrors = (validate: ReturnType<typeof schemaValidator>, doc: unknown) =>
  validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);

describe('the shipped library', () => {
  it('ships the packs, dictionaries and sector packs the issue names', () => {
    expect(packs.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'quiet_hours',
        'velocity',
        'first_time_merchant',
        'cross_border',
        'mcc_caps',
        'basket_restrictions',
        'high_risk_jurisdiction',
        'psd2_sca',
      ]),
    );
    expect(dictionaries.map((d) => d.name)).toEqual(
      expect.arrayContaining([
        'mcc',
        'country',
        'currency',
        'reason_code',
        'obligation_type',
        'stop_condition',
        'capability',
        'event_type',
        'role',
        'grant_state',
        'signing_profile',
        'connector_type',
        'risk_level',
        'side_effect_level',
        'compliance_framework',
        'compliance_control',
        'rule_taxonomy',
        'high_risk_jurisdiction',
      ]),
    );
    expect(sectors.map((s) => s.doc.sector).sort()).toEqual([
      'b2b_procurement',
      'charities',
      'digital_goods',
      'gambling',
      'groceries',
      'pharmacy',
      'travel',
      'utilities',
    ]);
  });

  it('names every file after its document, at version 1.0.0', () => {
    for (const p of packs) expect([p.doc.pack_id, p.doc.version]).toEqual([`ns:rule_pack:${p.name}`, '1.0.0']);
    for (const d of dictionaries)
      expect([d.doc.dictionary_id, d.doc.version]).toEqual([`ns:dictionary:${d.name}`, '1.0.0']);
    for (const s of sectors)
      expect([s.doc.sector_pack_id, s.doc.version]).toEqual([`ns:sector_pack:${s.name}`, '1.0.0']);
  });
});

describe('rule packs', () => {
  const validate = schemaValidator('rule_pack');

  it.each(packs.map((p) => [p.name, p.doc] as const))(
    '%s: schema, core validator, unsigned purchase pack',
    (_, doc) => {
      expect(schemaErrors(validate, doc)).toEqual([]);
      expect(validateRulePack(doc, known)).toEqual([]);
      expect(doc.domain).toBe('purchase');
      expect(doc.signature).toBeUndefined();
    },
  );

  it.each(packs.map((p) => [p.name, p.doc] as const))('%s: every declared dictionary is shipped', (_, doc) => {
    for (const ref of doc.dictionaries) expect(dictionaryRefs, ref).toContain(ref);
  });

  it.each(packs.map((p) => [p.name, p.doc] as const))(
    '%s: every rule is tested matching and not matching, every declared reason is given',
    (_, doc) => {
      const reasons = new Set(doc.tests.map((t) => t.expect.reason).filter((r) => r !== undefined));
      for (const declared of doc.reasons ?? []) expect(reasons, declared.code).toContain(`${_}.${declared.code}`);
      expect(doc.tests.some((t) => t.expect.effect === 'none')).toBe(true);
      expect(doc.tests.length).toBeGreaterThanOrEqual(Math.max(3, doc.rules.length + 1));
    },
  );

  it.each(packs.map((p) => [p.name, p.doc] as const))('%s: its tests pass under runPackTests', (_, doc) => {
    const report = runPackTests(doc, snapshots);
    const failures = report.results
      .filter((r) => !r.passed)
      .map((r) => ({ name: r.name, actual: r.actual, expected: r.expected }));
    expect(failures).toEqual([]);
    expect(report.passed).toBe(doc.tests.length);
  });

  it('a pack whose test expects the wrong outcome is reported failing (the runner is not vacuous)', () => {
    const doc = structuredClone(packs.find((p) => p.name === 'velocity')!.doc);
    doc.tests[0]!.expect = { effect: 'deny', reason: 'velocity.hourly_count_exceeded' };
    const report = runPackTests(doc, snapshots);
    expect(report.failed).toBe(1);
    expect(report.results[0]).toMatchObject({ passed: false, actual: { effect: 'none' } });
  });

  it('basket_restrictions compares categories that are terms of restricted_basket_category', () => {
    const doc = packs.find((p) => p.name === 'basket_restrictions')!.doc;
    const named = JSON.stringify(doc.rules.map((r) => r.when)).match(/"category"\},"([a-z_]+)"/g) ?? [];
    const categories = named.map((m) => m.slice('"category"},"'.length, -1));
    expect(categories.length).toBe(doc.rules.length);
    for (const c of categories) expect(codesOf('restricted_basket_category'), c).toContain(c);
  });

  it('every MCC of every family is a term of the mcc dictionary', () => {
    const mcc = codesOf('mcc');
    for (const family of snapshots.mcc_family!.codes) {
      const mccs = snapshots.mcc_family!.terms[family]!.mccs as string[];
      for (const code of mccs) expect(mcc, `${family} ${code}`).toContain(code);
    }
  });

  it('every country of the jurisdiction lists is a term of the country dictionary', () => {
    const countries = codesOf('country');
    for (const name of ['jurisdiction_group', 'high_risk_jurisdiction']) {
      for (const code of snapshots[name]!.codes) {
        for (const c of snapshots[name]!.terms[code]!.countries as string[])
          expect(countries, `${name} ${c}`).toContain(c);
      }
    }
  });
});

describe('dictionaries', () => {
  const validate = schemaValidator('dictionary');
  it.each(dictionaries.map((d) => [d.name, d.doc] as const))('%s: schema and core validator', (_, doc) => {
    expect(schemaErrors(validate, doc)).toEqual([]);
    expect(validateDictionary(doc)).toEqual([]);
  });

  it('mcc holds the ISO 18245 codes with their labels, four digits each', () => {
    const mcc = snapshots.mcc!;
    expect(mcc.codes.length).toBeGreaterThan(900);
    for (const code of mcc.codes) expect(code).toMatch(/^[0-9]{4}$/);
    expect(mcc.terms['5411']!.label).toBe('Grocery Stores, Supermarkets');
    expect(mcc.terms['7995']!.label).toMatch(/^Betting/);
    expect(mcc.terms['0742']!.label).toBe('Veterinary Services');
  });

  it('currency carries the minor units decide uses', () => {
    expect(snapshots.currency!.terms.EUR).toMatchObject({ label: 'Euro', minor_units: 2 });
    expect(snapshots.currency!.terms.JPY).toMatchObject({ minor_units: 0 });
    expect(snapshots.currency!.terms.BHD).toMatchObject({ minor_units: 3 });
  });

  it('obligation types and stop conditions hold the built-ins and every one a shipped rule adds', () => {
    const obligations = codesOf('obligation_type');
    const stops = codesOf('stop_condition');
    for (const t of ['audit.emit', 'basket_hash_binding', 'sca.required', 'notify.principal'])
      expect(obligations).toContain(t);
    for (const s of ['actor.stop_signal', 'delegation.revoked', 'scope.attenuated']) expect(stops).toContain(s);
    for (const p of packs) {
      for (const r of p.doc.rules) {
        for (const o of r.obligations ?? []) expect(obligations, `${p.name} ${r.rule_id}`).toContain(o.type);
        for (const s of r.stop_conditions ?? []) expect(stops, `${p.name} ${r.rule_id}`).toContain(s);
        for (const t of r.taxonomy ?? []) expect(codesOf('rule_taxonomy'), `${p.name} ${r.rule_id}`).toContain(t);
      }
    }
  });
});

describe('sector packs', () => {
  const validate = schemaValidator('sector_pack');
  it.each(sectors.map((s) => [s.name, s.doc] as const))('%s: schema, core validator, references resolve', (_, doc) => {
    expect(schemaErrors(validate, doc)).toEqual([]);
    expect(validateSectorPack(doc, known)).toEqual([]);
    for (const ref of doc.rule_packs) expect(packRefs, ref).toContain(ref);
    for (const ref of doc.dictionaries) expect(dictionaryRefs, ref).toContain(ref);
    // every dictionary its packs read is one the sector pack names, so applying it brings what the rules need
    for (const ref of doc.rule_packs) {
      const pack = packs.find((p) => p.name === parseRef(ref, 'rule_pack').name)!.doc;
      for (const d of pack.dictionaries) expect(doc.dictionaries, `${ref} reads ${d}`).toContain(d);
    }
  });

  it.each(sectors.map((s) => [s.name, s.doc] as const))(
    '%s: every scope template is a scope POST /v1/grants takes',
    (_, doc) => {
      expect(doc.scope_templates.length).toBeGreaterThan(0);
      for (const template of doc.scope_templates) {
        expect(() => parseGrantScope(template.scope, new Date('2026-01-01T00:00:00Z'))).not.toThrow();
        for (const c of (template.scope.allowed_merchant_categories as string[] | undefined) ?? []) {
          expect(codesOf('mcc'), `${template.name} ${c}`).toContain(c);
        }
      }
    },
  );
});

describe('compliance mappings are rule packs of the same format', () => {
  const validate = schemaValidator('rule_pack');
  it.each(mappings.map((m) => [m.name, m.doc] as const))(
    '%s: the one ns.rule_pack.v1 schema and the core validator, generic, no rules',
    (_, doc) => {
      expect(schemaErrors(validate, doc)).toEqual([]);
      expect(validateRulePack(doc, known)).toEqual([]);
      expect(doc).toMatchObject({ domain: 'generic', rules: [], tests: [], pack_id: `ns:rule_pack:${doc.framework}` });
    },
  );

  it('every implemented_by names a shipped rule', () => {
    const rules = new Set(
      packs.flatMap((p) => p.doc.rules.map((r) => `${p.doc.pack_id}@${p.doc.version}#${r.rule_id}`)),
    );
    const pointed = mappings.flatMap((m) =>
      ((m.doc.controls ?? []) as { evidence: { implemented_by?: string[] } }[]).flatMap(
        (c) => c.evidence.implemented_by ?? [],
      ),
    );
    expect(pointed.length).toBeGreaterThan(5);
    for (const ref of pointed) expect(rules, ref).toContain(ref);
  });

  it('PSD3 SCA and the EU AI Act human oversight point at the step-up rules', () => {
    const control = (framework: string, id: string) =>
      (
        (mappings.find((m) => m.doc.framework === framework)!.doc.controls ?? []) as {
          control_id: string;
          evidence: { implemented_by?: string[] };
        }[]
      ).find((c) => c.control_id === id)!;
    expect(control('psd3', 'PSR Art. 85').evidence.implemented_by).toContain(
      'ns:rule_pack:psd2_sca@1.0.0#cumulative_limit',
    );
    expect(control('eu_ai_act', 'Art. 14(4)(d)').evidence.implemented_by).toContain(
      'ns:rule_pack:first_time_merchant@1.0.0#new_merchant',
    );
  });
});
