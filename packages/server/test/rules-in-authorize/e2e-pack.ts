/** The rule pack the rules-in-authorize tests publish: a velocity deny and a first-merchant step-up (its own reasons). */
export const E2E_PACK = {
  schema_version: 'ns.rule_pack.v1',
  pack_id: 'ns:rule_pack:e2e_velocity',
  version: '1.0.0',
  domain: 'purchase',
  title: 'Velocity and new merchants (test)',
  description: 'At most three purchases an hour; a first purchase at a merchant waits for the principal.',
  dictionaries: [],
  reasons: [
    { code: 'hourly_count_exceeded', decision: 'deny', description: 'Three purchases in the last hour already.' },
    { code: 'new_merchant', decision: 'require_approval', description: 'A merchant the principal never bought from.' },
  ],
  rules: [
    {
      rule_id: 'hourly',
      title: 'At most three an hour',
      description: 'Denies a fourth execute within an hour.',
      when: {
        and: [
          { '===': [{ var: 'request.action' }, 'execute'] },
          { '>=': [{ var: ['facts.counters.purchases_1h', 0] }, 3] },
        ],
      },
      effect: 'deny',
      reason: 'e2e_velocity.hourly_count_exceeded',
    },
    {
      rule_id: 'new_merchant',
      title: 'Step up at a new merchant',
      description: 'Asks the principal for a first purchase at a merchant.',
      when: {
        and: [
          { '===': [{ var: 'request.action' }, 'execute'] },
          { '===': [{ var: 'facts.counters.merchant_first_purchase' }, true] },
        ],
      },
      effect: 'require_approval',
      reason: 'e2e_velocity.new_merchant',
    },
  ],
  tests: [
    {
      name: 'fourth purchase denied',
      context: {
        request: { action: 'execute' },
        facts: { counters: { purchases_1h: 3, merchant_first_purchase: false } },
      },
      expect: { effect: 'deny', reason: 'e2e_velocity.hourly_count_exceeded' },
    },
    {
      name: 'new merchant asks',
      context: {
        request: { action: 'execute' },
        facts: { counters: { purchases_1h: 0, merchant_first_purchase: true } },
      },
      expect: { effect: 'require_approval', reason: 'e2e_velocity.new_merchant' },
    },
    {
      name: 'known merchant, few purchases',
      context: {
        request: { action: 'execute' },
        facts: { counters: { purchases_1h: 1, merchant_first_purchase: false } },
      },
      expect: { effect: 'none' },
    },
  ],
};
