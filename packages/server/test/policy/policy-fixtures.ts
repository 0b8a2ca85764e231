/** Small rule packs and dictionaries for the policy API tests. */
export function testPack(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema_version: 'ns.rule_pack.v1',
    pack_id: `ns:rule_pack:${name}`,
    version: '1.0.0',
    domain: 'purchase',
    title: `Test pack ${name}`,
    description: 'denies the fourth purchase in an hour',
    dictionaries: [],
    reasons: [{ code: 'too_many', decision: 'deny', description: 'three purchases in the last hour already' }],
    rules: [
      {
        rule_id: 'hourly',
        title: 'at most three an hour',
        description: 'denies from the fourth purchase in an hour on',
        when: { '>=': [{ var: 'facts.counters.purchases_1h' }, 3] },
        effect: 'deny',
        reason: `${name}.too_many`,
      },
    ],
    tests: [
      {
        name: 'the fourth is denied',
        context: { request: {}, facts: { counters: { purchases_1h: 3 } } },
        expect: { effect: 'deny', reason: `${name}.too_many` },
      },
      {
        name: 'the first passes',
        context: { request: {}, facts: { counters: { purchases_1h: 0 } } },
        expect: { effect: 'none' },
      },
    ],
    ...overrides,
  };
}

export function testDictionary(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema_version: 'ns.dictionary.v1',
    dictionary_id: `ns:dictionary:${name}`,
    version: '1.0.0',
    title: `Test dictionary ${name}`,
    source: 'aar tests',
    terms: [
      { code: 'alpha', label: 'Alpha' },
      { code: 'beta', label: 'Beta' },
    ],
    ...overrides,
  };
}
