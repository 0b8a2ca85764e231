// Rule pack and dictionary documents for the rule tests.
import type { DictionaryDocument, RulePackDocument } from '../../src/index.ts';

export function velocityPack(): RulePackDocument {
  return {
    schema_version: 'ns.rule_pack.v1',
    pack_id: 'ns:rule_pack:velocity',
    version: '1.0.0',
    domain: 'purchase',
    title: 'Velocity',
    description: 'At most 5 purchases an hour; step up above 3.',
    dictionaries: ['ns:dictionary:country@1.0.0'],
    reasons: [
      { code: 'hourly_count_exceeded', decision: 'deny', description: 'more than 5 purchases in the last hour' },
      { code: 'hourly_step_up', decision: 'require_approval', description: 'more than 3 purchases in the last hour' },
    ],
    rules: [
      {
        rule_id: 'hourly-deny',
        title: 'Deny above 5 an hour',
        description: 'deny when 5 or more purchases happened in the last hour',
        when: { '>=': [{ var: 'facts.counters.purchases_1h' }, 5] },
        effect: 'deny',
        reason: 'velocity.hourly_count_exceeded',
      },
      {
        rule_id: 'hourly-step-up',
        title: 'Step up above 3 an hour',
        description: 'approval when 3 or more purchases happened in the last hour',
        when: { '>=': [{ var: 'facts.counters.purchases_1h' }, 3] },
        effect: 'require_approval',
        reason: 'velocity.hourly_step_up',
      },
      {
        rule_id: 'foreign-notify',
        title: 'Notify on a foreign merchant',
        description: 'a merchant outside the known countries adds a notification',
        when: { '!': { in: [{ var: 'facts.merchant.jurisdiction' }, { var: 'dict.country.codes' }] } },
        effect: 'obligate',
        obligations: [{ type: 'notify.principal', channel: 'email' }],
        stop_conditions: ['merchant.changed'],
      },
    ],
    tests: [
      {
        name: 'quiet hour',
        context: { request: {}, facts: { counters: { purchases_1h: 0 }, merchant: { jurisdiction: 'DE' } } },
        expect: { effect: 'none' },
      },
      {
        name: 'busy hour',
        context: { request: {}, facts: { counters: { purchases_1h: 3 }, merchant: { jurisdiction: 'DE' } } },
        expect: { effect: 'require_approval', reason: 'velocity.hourly_step_up' },
      },
      {
        name: 'too busy',
        context: { request: {}, facts: { counters: { purchases_1h: 6 }, merchant: { jurisdiction: 'DE' } } },
        expect: { effect: 'deny', reason: 'velocity.hourly_count_exceeded' },
      },
      {
        name: 'foreign',
        context: { request: {}, facts: { counters: { purchases_1h: 0 }, merchant: { jurisdiction: 'XX' } } },
        expect: { effect: 'obligate' },
      },
    ],
  };
}

export function countryDictionary(): DictionaryDocument {
  return {
    schema_version: 'ns.dictionary.v1',
    dictionary_id: 'ns:dictionary:country',
    version: '1.0.0',
    title: 'Countries',
    source: 'ISO 3166-1 alpha-2',
    terms: [
      { code: 'DE', label: 'Germany', eu: true },
      { code: 'FR', label: 'France', eu: true },
      { code: 'US', label: 'United States', eu: false },
    ],
  };
}
