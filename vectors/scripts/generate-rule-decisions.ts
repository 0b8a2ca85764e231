/**
 * `vectors/rule-decisions.json`: decide (aar-decide/1.3.0) with rule packs. Each case is a hand-written decision
 * vector (`vectors/decisions/`) given a `policy_set` of real signed rule pack documents (a fixed Ed25519 test key,
 * whose public JWK the file carries as `jwks`) and `facts`, with core's full result. The Python and Go ports replay
 * every case and must reach the same result, canonical JSON for canonical JSON; they may also verify each pack's
 * signature against `jwks`. Every pack here passes validateRulePack and its own tests.
 *
 *   node --import tsx vectors/scripts/generate-rule-decisions.ts
 */
import { sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decide } from '../../packages/core/src/decide/index.ts';
import {
  dictionarySnapshot,
  runPackTests,
  signDocument,
  validateDictionary,
  validateRulePack,
  type DictionaryDocument,
  type DictionarySnapshot,
  type RulePackDocument,
} from '../../packages/core/src/index.ts';
import { keyFromSeed } from '../lib/seeded-ed25519.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const RULE_DECISIONS_GENERATOR = 'vectors/scripts/generate-rule-decisions.ts';
const here = fileURLToPath(new URL('.', import.meta.url));
export const RULE_DECISIONS_PATH = join(here, '..', 'rule-decisions.json');
const KEY_ID = 'ns:key:rule-vectors';
const key = keyFromSeed(0x27);

const signer = { keyId: KEY_ID, sign: async (bytes: Uint8Array) => new Uint8Array(sign(null, bytes, key.privateKey)) };

function base(file: string): { request: Json; snapshot: Json; now: string } {
  const input = JSON.parse(readFileSync(join(here, '..', 'decisions', `${file}.json`), 'utf8')).input;
  return { request: input.request, snapshot: input.snapshot, now: input.now };
}

const country: DictionaryDocument = {
  schema_version: 'ns.dictionary.v1',
  dictionary_id: 'ns:dictionary:country',
  version: '1.0.0',
  title: 'Countries (excerpt)',
  source: 'ISO 3166-1 alpha-2',
  terms: [
    { code: 'DE', label: 'Germany', eu: true },
    { code: 'FR', label: 'France', eu: true },
    { code: 'NL', label: 'Netherlands', eu: true },
    { code: 'US', label: 'United States', eu: false },
  ],
};

function pack(name: string, over: Partial<RulePackDocument>): RulePackDocument {
  return {
    schema_version: 'ns.rule_pack.v1',
    pack_id: `ns:rule_pack:${name}`,
    version: '1.0.0',
    domain: 'purchase',
    title: name,
    description: `test pack ${name}`,
    dictionaries: [],
    reasons: [],
    rules: [],
    tests: [],
    ...over,
  };
}

const ctx = (facts: Json, request: Json = {}) => ({ request, facts });

const UNSIGNED: Record<string, RulePackDocument> = {
  velocity: pack('velocity', {
    reasons: [
      { code: 'hourly_count_exceeded', decision: 'deny', description: '5 or more purchases in the last hour' },
      { code: 'hourly_step_up', decision: 'require_approval', description: '3 or more purchases in the last hour' },
    ],
    rules: [
      { rule_id: 'hourly-deny', title: 'deny at 5 an hour', description: 'deny at 5 purchases an hour',
        when: { '>=': [{ var: 'facts.counters.purchases_1h' }, 5] }, effect: 'deny', reason: 'velocity.hourly_count_exceeded' },
      { rule_id: 'hourly-step-up', title: 'step up at 3 an hour', description: 'approval at 3 purchases an hour',
        when: { '>=': [{ var: 'facts.counters.purchases_1h' }, 3] }, effect: 'require_approval', reason: 'velocity.hourly_step_up' },
    ],
    tests: [
      { name: 'quiet', context: ctx({ counters: { purchases_1h: 0 } }), expect: { effect: 'none' } },
      { name: 'busy', context: ctx({ counters: { purchases_1h: 3 } }), expect: { effect: 'require_approval', reason: 'velocity.hourly_step_up' } },
      { name: 'too busy', context: ctx({ counters: { purchases_1h: 5 } }), expect: { effect: 'deny', reason: 'velocity.hourly_count_exceeded' } },
    ],
  }),
  night: pack('night', {
    reasons: [{ code: 'night_purchase', decision: 'deny', description: 'no agent purchase 01:00-05:00 local time' }],
    rules: [
      { rule_id: 'no-night', title: 'no night purchases', description: 'deny 01:00 to 04:59 in the principal\'s zone',
        when: { '<=': [1, { var: 'facts.local_time.hour' }, 4] }, effect: 'deny', reason: 'night.night_purchase' },
    ],
    tests: [
      { name: '02:00', context: ctx({ local_time: { hour: 2 } }), expect: { effect: 'deny', reason: 'night.night_purchase' } },
      { name: '10:00', context: ctx({ local_time: { hour: 10 } }), expect: { effect: 'none' } },
    ],
  }),
  'first-merchant': pack('first-merchant', {
    reasons: [{ code: 'new_merchant', decision: 'require_approval', description: 'first purchase at this merchant' }],
    rules: [
      { rule_id: 'new-merchant', title: 'step up at a new merchant', description: 'approval for a first purchase',
        when: { '===': [{ var: 'facts.counters.merchant_first_purchase' }, true] }, effect: 'require_approval', reason: 'first-merchant.new_merchant' },
    ],
    tests: [{ name: 'first', context: ctx({ counters: { merchant_first_purchase: true } }), expect: { effect: 'require_approval' } }],
  }),
  'cross-border': pack('cross-border', {
    dictionaries: ['ns:dictionary:country@1.0.0'],
    rules: [
      { rule_id: 'foreign-notify', title: 'notify abroad', description: 'a known country other than Germany notifies the principal',
        when: { and: [
          { in: [{ var: 'facts.merchant.jurisdiction' }, { var: 'dict.country.codes' }] },
          { '!==': [{ var: 'facts.merchant.jurisdiction' }, 'DE'] },
          { '===': [{ var: 'dict.country.terms.DE.eu' }, true] },
        ] },
        effect: 'obligate', obligations: [{ type: 'notify.principal', channel: 'email' }], stop_conditions: ['merchant.changed'] },
      { rule_id: 'unknown-country', title: 'unknown country', description: 'a jurisdiction outside the dictionary is logged',
        when: { '!': { in: [{ var: 'facts.merchant.jurisdiction' }, { var: 'dict.country.codes' }] } },
        effect: 'obligate', obligations: [{ type: 'audit.flag', tag: 'unknown_country' }], stop_conditions: ['merchant.changed', 'jurisdiction.changed'] },
    ],
    tests: [
      { name: 'home', context: ctx({ merchant: { jurisdiction: 'DE' } }), expect: { effect: 'none' } },
      { name: 'abroad', context: ctx({ merchant: { jurisdiction: 'FR' } }), expect: { effect: 'obligate' } },
      { name: 'unknown', context: ctx({ merchant: { jurisdiction: 'CH' } }), expect: { effect: 'obligate' } },
    ],
  }),
  'big-ticket': pack('big-ticket', {
    reasons: [{ code: 'above_300', decision: 'require_approval', description: 'above 300.00 in the request currency' }],
    rules: [
      { rule_id: 'above-300', title: 'approval above 300', description: 'approval above 30000 minor units',
        when: { '>': [{ var: 'request.amount.minor' }, 30000] }, effect: 'require_approval', reason: 'big-ticket.above_300',
        obligations: [{ type: 'notify.principal', channel: 'email' }] },
    ],
    tests: [{ name: '400', context: ctx({}, { amount: { minor: 40000, currency: 'EUR' } }), expect: { effect: 'require_approval' } }],
  }),
  fragile: pack('fragile', {
    reasons: [{ code: 'context_flag', decision: 'deny', description: 'the request context names x' }],
    rules: [
      // throws when request.context carries its own `indexOf` member: counted as matched (fail closed)
      { rule_id: 'context-x', title: 'context names x', description: 'deny when the request context holds x',
        when: { in: ['x', { var: 'request.context' }] }, effect: 'deny', reason: 'fragile.context_flag' },
    ],
    tests: [{ name: 'no context', context: ctx({}, {}), expect: { effect: 'none' } }],
  }),
  notify: pack('notify', {
    rules: [
      { rule_id: 'always-notify', title: 'always notify', description: 'every purchase notifies the principal',
        when: true, effect: 'obligate', obligations: [{ type: 'notify.principal', channel: 'email' }, { type: 'audit.emit' }] },
      { rule_id: 'fragile-notify', title: 'notify on context', description: 'throws on a context with its own toString',
        when: { '<': [{ var: 'request.context' }, -1] }, effect: 'obligate', stop_conditions: ['context.changed'] },
    ],
    tests: [{ name: 'always', context: ctx({}), expect: { effect: 'obligate' } }],
  }),
  basket: pack('basket', {
    reasons: [{ code: 'restricted_item', decision: 'deny', description: 'an alcohol or tobacco item in the basket' }],
    rules: [
      { rule_id: 'restricted', title: 'restricted items', description: 'deny a basket with alcohol or tobacco',
        when: { some: [{ var: 'request.basket.items' }, { in: [{ var: 'category' }, ['alcohol', 'tobacco']] }] },
        effect: 'deny', reason: 'basket.restricted_item' },
    ],
    tests: [
      { name: 'wine', context: ctx({}, { basket: { items: [{ category: 'alcohol' }] } }), expect: { effect: 'deny' } },
      { name: 'bread', context: ctx({}, { basket: { items: [{ category: 'bakery' }] } }), expect: { effect: 'none' } },
    ],
  }),
  generic: pack('generic', {
    domain: 'generic',
    reasons: [{ code: 'always', decision: 'deny', description: 'denies everything' }],
    rules: [{ rule_id: 'deny-all', title: 'deny all', description: 'deny', when: true, effect: 'deny', reason: 'generic.always' }],
    tests: [{ name: 'deny', context: ctx({}), expect: { effect: 'deny' } }],
  }),
};

export async function generateRuleDecisions(): Promise<Json> {
  const dictionary = dictionarySnapshot(country);
  if (validateDictionary(country).length > 0) throw new Error('country dictionary invalid');
  const dictionaries: Record<string, DictionarySnapshot> = { country: dictionary };
  const signed: Record<string, RulePackDocument> = {};
  for (const [name, doc] of Object.entries(UNSIGNED)) {
    const problems = validateRulePack(doc);
    if (problems.length > 0) throw new Error(`pack ${name}: ${JSON.stringify(problems)}`);
    const tests = runPackTests(doc, dictionaries);
    if (tests.failed > 0) throw new Error(`pack ${name} tests: ${JSON.stringify(tests.results)}`);
    signed[name] = await signDocument(doc, signer);
  }
  let activation = 0;
  const policySet = (...packs: (string | [string, 'enforce' | 'shadow'])[]) => ({
    packs: packs.map((p) => {
      const [name, mode] = typeof p === 'string' ? [p, 'enforce' as const] : p;
      activation++;
      return {
        activation_id: `ns:rule_activation:00000000-0000-4000-8000-${String(activation).padStart(12, '0')}`,
        mode,
        document: signed[name]!,
      };
    }),
    dictionaries,
  });
  const counters = (over: Json = {}) => ({
    purchases_1h: 0, purchases_24h: 0, spend_24h_minor: 0, spend_30d_minor: 0, merchant_first_purchase: false,
    agent_purchases_1h: 0, agent_purchases_24h: 0, ...over,
  });
  const localTime = (hour: number) => ({ zone: 'Europe/Berlin', hour, minute: 0, weekday: 3, date: '2026-04-15' });
  const cases: Json[] = [];
  const add = (name: string, file: string, packs: Json, facts: Json | undefined, edit?: (input: Json) => void) => {
    const input = base(file);
    if (packs !== undefined) input.snapshot.policy_set = packs;
    if (facts !== undefined) input.snapshot.facts = facts;
    edit?.(input);
    cases.push({ name, request: input.request, snapshot: input.snapshot, now: input.now, result: decide(input.request, input.snapshot, input.now) });
  };
  const allow = 'allow-execute-eur-root-grant';
  const facts = (c: Json = {}, hour = 10) => ({ counters: counters(c), local_time: localTime(hour) });

  add('no rule matches: allowed, rules listed empty', allow, policySet('velocity'), facts());
  add('velocity deny decides with its reason', allow, policySet('velocity'), facts({ purchases_1h: 6 }));
  add('velocity require_approval asks for approval', allow, policySet('velocity'), facts({ purchases_1h: 3 }));
  add('retry of a rule require_approval with an approved approval is allowed', 'allow-approved-by-principal', policySet('velocity'), facts({ purchases_1h: 3 }));
  add('retry of a rule require_approval with a pending approval stays pending', 'approval-pending', policySet('velocity'), facts({ purchases_1h: 3 }));
  add('retry with a rejected approval is denied by the approval check', 'deny-approval-rejected', policySet('velocity'), facts({ purchases_1h: 3 }));
  add('retry with a consumed approval is denied', 'deny-approval-consumed', policySet('velocity'), facts({ purchases_1h: 3 }));
  add('a deny rule denies even an approved retry', 'allow-approved-by-principal', policySet('velocity'), facts({ purchases_1h: 7 }));
  add('night rule denies at 02:00 local time', allow, policySet('night'), facts({}, 2));
  add('night rule passes at 05:00 local time', allow, policySet('night'), facts({}, 5));
  add('first purchase at a merchant steps up', allow, policySet('first-merchant'), facts({ merchant_first_purchase: true }));
  add('obligate rules add obligations and stop conditions to an allow', allow, policySet('cross-border'), facts(),
    (i) => { i.snapshot.merchant.jurisdiction = 'CH'; i.snapshot.grants[0].scope.allowed_jurisdictions.push('CH'); });
  const france = (i: Json) => { i.snapshot.merchant.jurisdiction = 'FR'; };
  add('a known foreign country notifies (dictionary codes and terms read)', allow, policySet('cross-border'), facts(), france);
  add('obligations ride along a require_approval', allow, policySet('cross-border', 'velocity'), facts({ purchases_1h: 4 }), france);
  add('a deny drops rule obligations', allow, policySet('cross-border', 'velocity'), facts({ purchases_1h: 9 }), france);
  add('obligations deduplicated across packs, built-in audit.emit not repeated', allow, policySet('notify', 'cross-border', 'big-ticket'), facts(), france);
  add('require_approval rule with its own obligation', allow, policySet('big-ticket', 'notify'), facts(),
    (i) => { i.request.amount.minor = 40000; i.snapshot.grants[0].scope.max_amount_per_purchase.minor = 50000; i.snapshot.grants[0].scope.requires_approval_above.minor = 45000; i.snapshot.grants[0].scope.max_daily_amount.minor = 100000; });
  add('shadow deny is recorded, never decisive', allow, policySet(['velocity', 'shadow']), facts({ purchases_1h: 6 }));
  add('shadow require_approval beside an enforce obligate', allow, policySet('notify', ['velocity', 'shadow']), facts({ purchases_1h: 3 }));
  add('shadow obligate and shadow none', allow, policySet(['notify', 'shadow'], ['night', 'shadow']), facts());
  add('enforce deny and shadow deny of the same facts', allow, policySet('velocity', ['night', 'shadow']), facts({ purchases_1h: 5 }, 3));
  add('a throwing deny rule counts as matched (fail closed)', allow, policySet('fragile'), facts(), (i) => { i.request.context = { indexOf: 1 }; });
  add('a throwing rule that does not throw without its trigger', allow, policySet('fragile'), facts(), (i) => { i.request.context = { note: 'x' }; });
  add('a throwing obligate rule adds its stop conditions', allow, policySet('notify'), facts(), (i) => { i.request.context = { toString: 'x' }; });
  add('a rule outside the profile (edited snapshot) counts as an error match', allow, policySet('velocity'), facts(),
    (i) => { i.snapshot.policy_set.packs[0].document = { ...i.snapshot.policy_set.packs[0].document, rules: [{ ...UNSIGNED.velocity!.rules[0]!, when: { '==': [1, 1] } }] }; });
  add('several packs in order: a later deny beats an earlier require_approval', allow, policySet('first-merchant', 'night'), facts({ merchant_first_purchase: true }, 1));
  add('several deny packs: the first in activation order decides', allow, policySet('night', 'velocity'), facts({ purchases_1h: 5 }, 4));
  add('alternatives: rules evaluated once, every chain narrowed', 'multi-grant-allow-beats-approval', policySet('velocity'), facts({ purchases_1h: 3 }));
  add('alternatives: a rule deny under every chain', 'multi-grant-allow-beats-approval', policySet('night'), facts({}, 2));
  add('a built-in deny skips the rules (no rule diagnostics, no shadow)', 'deny-merchant-category-blocked', policySet('velocity', ['night', 'shadow']), facts({ purchases_1h: 9 }, 2));
  add('elevated risk plus a rule deny: the rule denies', 'approval-risk-elevated', policySet('velocity'), facts({ purchases_1h: 5 }));
  add('elevated risk plus a rule require_approval: elevated risk stands', 'approval-risk-elevated', policySet('velocity'), facts({ purchases_1h: 3 }));
  add('elevated risk, approved retry, rule require_approval: approved', 'allow-elevated-risk-approved', policySet('velocity'), facts({ purchases_1h: 3 }));
  add('built-in approval threshold with a rule require_approval: the rule\'s reason', 'approval-amount-above-threshold', policySet('first-merchant'), facts({ merchant_first_purchase: true }));
  add('built-in approval threshold with a rule deny: denied', 'approval-amount-above-threshold', policySet('velocity'), facts({ purchases_1h: 5 }));
  add('basket items: restricted category denied', 'allow-execute-with-basket', policySet('basket'), facts(),
    (i) => { i.request.basket = { items: [{ sku: 'w1', category: 'alcohol', qty: 1 }] }; delete i.request.basket_hash; });
  add('basket binding kept before rule obligations', 'allow-execute-with-basket', policySet('basket', 'notify'), facts(),
    (i) => { i.request.basket = { items: [{ sku: 'b1', category: 'bakery', qty: 2 }] }; delete i.request.basket_hash; });
  add('generic packs are never evaluated by purchase decide', allow, policySet('generic'), facts());
  add('an empty policy set: allowed, no rule matched', allow, policySet(), undefined);
  add('no facts: counters read null, nothing matches', allow, policySet('velocity', 'night'), undefined);
  add('a declared dictionary at another version reads as absent', allow, policySet('cross-border'), facts(),
    (i) => { i.snapshot.policy_set.dictionaries = { country: { ...dictionary, version: '2.0.0' } }; });
  add('prepare action with rules', 'allow-prepare-over-approval-threshold', policySet('big-ticket', 'velocity'), facts());

  return { generator: RULE_DECISIONS_GENERATOR, jwks: { keys: [{ ...key.publicJwk, kid: KEY_ID, alg: 'EdDSA', use: 'sig' }] }, count: cases.length, cases };
}

export function formatRuleDecisions(file: Json): string {
  return `${JSON.stringify(file, null, 1)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(RULE_DECISIONS_PATH, formatRuleDecisions(await generateRuleDecisions()));
  console.log(`wrote ${RULE_DECISIONS_PATH}`);
}
