/**
 * The taxonomy tree (core rules/taxonomy.ts) and the taxonomy members of a rule pack (rules and compliance controls):
 * parents resolve, cycles are refused rather than walked, broader and narrower terms are what the dictionary says,
 * and validateRulePack names the exact pointer of an unknown term on a rule or a control.
 */
import { describe, expect, it } from 'vitest';
import {
  broaderTerms,
  matchingTerms,
  narrowerTerms,
  taxonomyTree,
  validateRulePack,
  type DictionaryTerm,
} from '../../src/index.ts';

const terms = (...list: Array<[string, string?]>): { terms: DictionaryTerm[] } => ({
  terms: list.map(([code, parent]) => ({ code, label: code, ...(parent ? { parent } : {}) })),
});

describe('taxonomyTree', () => {
  const { tree, problems } = taxonomyTree(
    terms(['oversight'], ['step_up', 'oversight'], ['revocation', 'oversight'], ['night_ask', 'step_up'], ['spend']),
  );

  it('builds the forest from `parent`', () => {
    expect(problems).toEqual([]);
    expect(narrowerTerms(tree!, 'oversight')).toEqual(['step_up', 'night_ask', 'revocation']);
    expect(narrowerTerms(tree!, 'spend')).toEqual([]);
    expect(broaderTerms(tree!, 'night_ask')).toEqual(['step_up', 'oversight']);
    expect(broaderTerms(tree!, 'oversight')).toEqual([]);
    expect(broaderTerms(tree!, 'unknown')).toEqual([]);
  });

  it('matches what a holder points at against the covered terms, in the holder order', () => {
    const covered = new Set(['oversight', ...narrowerTerms(tree!, 'oversight')]);
    expect(matchingTerms(['spend', 'night_ask', 'step_up'], covered)).toEqual(['night_ask', 'step_up']);
    expect(matchingTerms(['spend'], covered)).toEqual([]);
    expect(matchingTerms(undefined, covered)).toEqual([]);
  });

  it('refuses a parent that is not a term, and a cycle, naming the term', () => {
    expect(taxonomyTree(terms(['a', 'nowhere'])).problems).toEqual([
      '/terms/0/parent: "nowhere" is not a term of the taxonomy',
    ]);
    const cycle = taxonomyTree(terms(['a', 'b'], ['b', 'c'], ['c', 'a'], ['d']));
    expect(cycle.tree).toBeUndefined();
    expect(cycle.problems).toEqual([
      '/terms/0/parent: term a is its own ancestor',
      '/terms/1/parent: term b is its own ancestor',
      '/terms/2/parent: term c is its own ancestor',
    ]);
    expect(taxonomyTree(terms(['self', 'self'])).problems).toEqual(['/terms/0/parent: term self is its own ancestor']);
  });
});

describe('taxonomy members of a rule pack', () => {
  const mapping = (taxonomy: unknown) => ({
    schema_version: 'ns.rule_pack.v1',
    pack_id: 'ns:rule_pack:acme',
    version: '1.0.0',
    domain: 'generic',
    title: 'Acme',
    description: 'a mapping',
    dictionaries: [],
    rules: [],
    tests: [],
    framework: 'acme',
    controls: [
      {
        control_id: 'A-1',
        title: 'one',
        assessment: 'gap',
        reason: 'r',
        evidence: { description: 'd', requirements: [] },
      },
      {
        control_id: 'A-2',
        title: 'two',
        assessment: 'gap',
        reason: 'r',
        taxonomy,
        evidence: { description: 'd', requirements: [] },
      },
    ],
  });
  const known = { taxonomy: new Set(['human_oversight', 'sca']) };

  it('accepts known terms on a control, and a control without taxonomy', () => {
    expect(validateRulePack(mapping(['human_oversight', 'sca']), known)).toEqual([]);
  });

  it('names the pointer of an unknown, repeated or malformed term on a control', () => {
    expect(validateRulePack(mapping(['sca', 'astrology']), known)).toEqual([
      { pointer: '/controls/1/taxonomy/1', message: 'unknown taxonomy term astrology' },
    ]);
    expect(validateRulePack(mapping(['sca', 'sca']), known)).toEqual([
      { pointer: '/controls/1/taxonomy/1', message: '"sca" is listed twice' },
    ]);
    expect(validateRulePack(mapping('sca'), known)).toEqual([
      { pointer: '/controls/1/taxonomy', message: 'taxonomy must be an array' },
    ]);
    expect(validateRulePack(mapping([7]), known)).toEqual([
      { pointer: '/controls/1/taxonomy/0', message: 'must be a rule_taxonomy term code' },
    ]);
  });

  it('without known terms, only the shape is checked', () => {
    expect(validateRulePack(mapping(['astrology']))).toEqual([]);
  });
});
