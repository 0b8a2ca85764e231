/**
 * A decision snapshot carries only the dictionary terms the active packs' rules can read (core
 * dictionaryTermsRead). What a user notices: a decision replays exactly the same on the trimmed dictionaries as on the
 * whole ones (every shipped pack's own tests give the same report), and a decision record no longer holds whole
 * dictionaries a rule reads one term of.
 */
import { dictionarySnapshot, dictionaryTermsRead, rulePaths, runPackTests, type DictionarySnapshot } from '@aar/core';
import { describe, expect, it } from 'vitest';
import { shippedDictionaries, shippedRulePacks } from './shipped-content.ts';

const whole: Record<string, DictionarySnapshot> = Object.fromEntries(
  shippedDictionaries().map((d) => [d.name, dictionarySnapshot(d.doc)]),
);

describe('dictionaryTermsRead', () => {
  it('gives every shipped pack the same test report as the whole dictionaries, in fewer bytes', () => {
    for (const { doc } of shippedRulePacks()) {
      const trimmed = dictionaryTermsRead(rulePaths(doc), whole);
      expect(runPackTests(doc, trimmed), doc.pack_id).toEqual(runPackTests(doc, whole));
      expect(JSON.stringify(trimmed).length, doc.pack_id).toBeLessThan(JSON.stringify(whole).length);
    }
  });

  it('keeps one term for a path into it, the code list only for a path into it, and all of what a path above reads', () => {
    const mcc = whole.mcc_family!;
    const [first, second] = mcc.codes;
    const oneTerm = dictionaryTermsRead([`dict.mcc_family.terms.${first}.mccs`], { mcc_family: mcc }).mcc_family!;
    expect(Object.keys(oneTerm.terms)).toEqual([first]);
    expect(oneTerm.codes).toEqual([]);
    expect(oneTerm.digest).toBe(mcc.digest);

    const codes = dictionaryTermsRead(['dict.mcc_family.codes'], { mcc_family: mcc }).mcc_family!;
    expect(codes.codes).toEqual(mcc.codes);
    expect(codes.terms).toEqual({});

    for (const above of ['', 'dict', 'dict.mcc_family']) {
      expect(dictionaryTermsRead([above], { mcc_family: mcc }).mcc_family, above).toBe(mcc);
    }
    const allTerms = dictionaryTermsRead(['dict.mcc_family.terms'], { mcc_family: mcc }).mcc_family!;
    expect(Object.keys(allTerms.terms)).toEqual(mcc.codes);

    // nothing read: the dictionary keeps its identity (which version the rules were given) and nothing else
    const unread = dictionaryTermsRead(['facts.counters.purchases_1h'], { mcc_family: mcc }).mcc_family!;
    expect(unread).toEqual({
      dictionary_id: mcc.dictionary_id,
      version: mcc.version,
      digest: mcc.digest,
      codes: [],
      terms: {},
    });
    expect(second).toBeDefined();
  });
});
