/**
 * The rule packs the rule-packs benchmark activates: five `ns.rule_pack.v1` documents of ten purchase rules each, in
 * the strict JsonLogic profile, written like the shipped library (packages/server/policy/rule-packs): amount caps,
 * currency and merchant category lists, high-risk and cross-border jurisdictions from the shipped dictionaries,
 * basket checks; the `facts` variant swaps five rules of each pack for rules reading `facts.counters` (velocity,
 * cumulative spend, first purchase at a merchant) and `facts.local_time` (quiet hours, weekends).
 *
 * INVARIANT: no rule matches the benchmark's purchase (1.00 EUR at a German grocer, MCC 5411, a basket of three
 * grocery lines; BENCH_BASKET), so every answer stays an allow and the groups compare the same decision. Rules that
 * read counters are conjunctions whose counter term comes first and is TRUE for the bench's busy principal (so the
 * counter is really read) and whose other term is false. The quiet hours are placed away from `now` (a run lasts
 * about two minutes), so they never hold during the run. Each pack carries two tests (an ordinary purchase: none; one
 * its first rule catches), as publishing requires.
 */
import type { LocalTime, PurchaseCounters } from '@aar/core';

export type RuleVariant = 'request' | 'facts';

/** packs per variant; the 10-rule group activates the first, the 50-rule group all of them */
export const PACKS_PER_VARIANT = 5;
export const RULES_PER_PACK = 10;
export const PACK_VERSION = '1.0.0';

/** the benchmark's basket: 100 minor units in all, as the purchase's 1.00 EUR */
export const BENCH_BASKET = {
  items: [
    { sku: 'bread-500g', category: 'food', quantity: 1, unit_price: { minor: 45, currency: 'EUR' } },
    { sku: 'milk-1l', category: 'food', quantity: 1, unit_price: { minor: 35, currency: 'EUR' } },
    { sku: 'dish-soap', category: 'household', quantity: 1, unit_price: { minor: 20, currency: 'EUR' } },
  ],
};

/** the probe's extra basket line: every pack's `basket_restricted` rule denies it */
export const WEAPON = { sku: 'knife', category: 'weapons', quantity: 1, unit_price: { minor: 0, currency: 'EUR' } };

const DICTIONARIES = [
  'ns:dictionary:mcc_family@1.0.0',
  'ns:dictionary:high_risk_jurisdiction@1.0.0',
  'ns:dictionary:jurisdiction_group@1.0.0',
];

type Expr = Record<string, unknown>;
const v = (path: string): Expr => ({ var: path });
const execute: Expr = { '===': [v('request.action'), 'execute'] };
const and = (...terms: Expr[]): Expr => ({ and: [execute, ...terms] });
const gt = (a: unknown, b: unknown): Expr => ({ '>': [a, b] });
const amount = v('request.amount.minor');

interface BenchRule {
  rule_id: string;
  title: string;
  when: Expr;
  effect: 'deny' | 'require_approval';
}

/** Rules reading the request, the merchant and the dictionaries only; `i` (1..5) varies the limits and lists. */
function requestRules(i: number): BenchRule[] {
  const restricted = [
    ['weapons', 'explosives'],
    ['weapons', 'ammunition', 'fireworks'],
    ['weapons', 'tobacco'],
    ['weapons', 'explosives', 'ammunition'],
    ['weapons', 'gift_cards'],
  ][i - 1]!;
  const blockedMccs = [
    ['7995', '7800'],
    ['7801', '7802', '9406'],
    ['5993'],
    ['6051', '6540'],
    ['4829', '6010', '6011'],
  ][i - 1]!;
  return [
    {
      rule_id: 'amount_step_up',
      title: 'Step up above a per-purchase amount',
      effect: 'require_approval',
      when: and({ '===': [v('request.amount.currency'), 'EUR'] }, gt(amount, 20_000 + 5_000 * i)),
    },
    { rule_id: 'amount_hard_cap', title: 'Never above a hard cap', effect: 'deny', when: and(gt(amount, 200_000 * i)) },
    {
      rule_id: 'currency_list',
      title: 'Only the currencies of the account',
      effect: 'deny',
      when: and({
        '!': { in: [v('request.amount.currency'), ['EUR', 'USD', 'GBP', 'CHF', 'SEK', 'DKK', 'PLN'].slice(0, 3 + i)] },
      }),
    },
    {
      rule_id: 'blocked_mcc',
      title: 'Blocked merchant categories',
      effect: 'deny',
      when: and({ in: [v('facts.merchant.category'), blockedMccs] }),
    },
    {
      rule_id: 'gambling',
      title: 'No gambling merchants',
      effect: 'deny',
      when: and({ in: [v('facts.merchant.category'), v('dict.mcc_family.terms.gambling.mccs')] }),
    },
    {
      rule_id: 'cash_like_cap',
      title: 'Cash-like merchants: step up above a cap',
      effect: 'require_approval',
      when: and(
        { in: [v('facts.merchant.category'), v('dict.mcc_family.terms.cash_like.mccs')] },
        gt(amount, 5_000 * i),
      ),
    },
    {
      rule_id: 'high_risk_jurisdiction',
      title: 'FATF call-for-action jurisdictions',
      effect: 'deny',
      when: and({
        in: [v('facts.merchant.jurisdiction'), v('dict.high_risk_jurisdiction.terms.fatf_call_for_action.countries')],
      }),
    },
    {
      rule_id: 'cross_border',
      title: 'Step up outside the EEA',
      effect: 'require_approval',
      when: and({ '!': { in: [v('facts.merchant.jurisdiction'), v('dict.jurisdiction_group.terms.eea.countries')] } }),
    },
    {
      rule_id: 'basket_restricted',
      title: 'Restricted basket categories',
      effect: 'deny',
      when: and({ some: [v('request.basket.items'), { in: [v('category'), restricted] }] }),
    },
    {
      rule_id: 'basket_line',
      title: 'Step up for a large basket line',
      effect: 'require_approval',
      when: and({
        some: [v('request.basket.items'), { or: [gt(v('quantity'), 20 + i), gt(v('unit_price.minor'), 40_000)] }],
      }),
    },
  ];
}

/** Hours of the quiet window: four hours starting six hours after `now`'s UTC hour (never `now`'s, nor the next). */
export function quietHours(now: Date): number[] {
  const start = (now.getUTCHours() + 6) % 24;
  return [0, 1, 2, 3].map((k) => (start + k) % 24);
}

/** Rules reading `facts.counters` and `facts.local_time` (the counter term first: true for the bench, so it is read). */
function factRules(i: number, quiet: number[]): BenchRule[] {
  const counters = (name: keyof PurchaseCounters) => v(`facts.counters.${name}`);
  return [
    {
      rule_id: 'gambling_velocity',
      title: 'At most 3 gambling purchases an hour',
      effect: 'deny',
      when: and(
        { '>=': [counters('purchases_1h'), 3] },
        { in: [v('facts.merchant.category'), v('dict.mcc_family.terms.gambling.mccs')] },
      ),
    },
    {
      rule_id: 'low_value_cumulative',
      title: 'Low-value exemption: at most 150 EUR a day above 50 EUR each',
      effect: 'require_approval',
      when: and(gt({ '+': [counters('spend_24h_minor'), amount] }, 15_000), gt(amount, 5_000 * i)),
    },
    {
      rule_id: 'travel_monthly',
      title: 'Travel merchants: 1,000 EUR a month',
      effect: 'require_approval',
      when: and(gt({ '+': [counters('spend_30d_minor'), amount] }, 100_000 * i), {
        in: [v('facts.merchant.category'), v('dict.mcc_family.terms.travel.mccs')],
      }),
    },
    {
      rule_id: 'first_merchant_large',
      title: 'Step up a large first purchase at a merchant',
      effect: 'require_approval',
      when: and({ '===': [counters('merchant_first_purchase'), true] }, gt(amount, 10_000 * i)),
    },
    {
      rule_id: 'agent_daily_basket',
      title: 'Agent busy today: restricted basket lines wait for the principal',
      effect: 'require_approval',
      when: and(
        { '>=': [counters('agent_purchases_24h'), 10] },
        { some: [v('request.basket.items'), { in: [v('category'), ['alcohol', 'tobacco']] }] },
      ),
    },
    {
      rule_id: 'counters_missing',
      title: 'No counters: the principal decides',
      effect: 'require_approval',
      when: and({ missing_some: [1, ['facts.counters.purchases_1h', 'facts.counters.spend_24h_minor']] }),
    },
    {
      rule_id: 'quiet_hours',
      title: `No agent purchases at ${quiet[0]}:00-${quiet[3]}:59`,
      effect: 'deny',
      when: and({ in: [v('facts.local_time.hour'), quiet] }),
    },
    {
      rule_id: 'weekend_cap',
      title: 'Weekends: step up above a cap',
      effect: 'require_approval',
      when: and({ in: [v('facts.local_time.weekday'), [6, 7]] }, gt(amount, 10_000 * i)),
    },
    {
      rule_id: 'night_velocity',
      title: 'Agent purchases in the quiet hours count double',
      effect: 'deny',
      when: and({ '>=': [counters('agent_purchases_1h'), 2] }, { in: [v('facts.local_time.hour'), quiet] }),
    },
    {
      rule_id: 'local_time_missing',
      title: 'No local time: the principal decides',
      effect: 'require_approval',
      when: and({ missing: ['facts.local_time.hour'] }),
    },
  ];
}

export function packName(variant: RuleVariant, i: number): string {
  return `bench_${variant}_${i}`;
}

/**
 * The rule context of the benchmark's purchase at `now` (UTC, the bench principal has no time zone), with the
 * counters of a busy principal; `change` makes it one a rule catches (the packs' second test, the weapon probe).
 */
export function benchContext(
  now: Date,
  change: { amount?: number; category?: string; weapon?: boolean } = {},
): Record<string, unknown> {
  const counters: PurchaseCounters = {
    purchases_1h: 40,
    purchases_24h: 400,
    spend_24h_minor: 40_000,
    spend_30d_minor: 90_000,
    merchant_first_purchase: false,
    agent_purchases_1h: 40,
    agent_purchases_24h: 400,
  };
  const localTime: LocalTime = {
    zone: 'UTC',
    hour: now.getUTCHours(),
    minute: now.getUTCMinutes(),
    weekday: ((now.getUTCDay() + 6) % 7) + 1,
    date: now.toISOString().slice(0, 10),
  };
  return {
    request: {
      actor_entity_id: 'ns:entity:agent:bench-agent',
      principal_entity_id: 'ns:entity:person:bench-principal',
      subject: 'ns:capability:payment_action:card_purchase',
      action: 'execute',
      merchant_id: 'bench-grocer',
      amount: { minor: change.amount ?? 100, currency: 'EUR' },
      instrument_id: 'ns:card_token:bench-card',
      basket: change.weapon ? { items: [...BENCH_BASKET.items, WEAPON] } : BENCH_BASKET,
    },
    facts: {
      principal: { entity_id: 'ns:entity:person:bench-principal', type: 'person', state: 'active' },
      actor: { entity_id: 'ns:entity:agent:bench-agent', type: 'agent', state: 'active' },
      instrument: {
        card_token_id: 'ns:card_token:bench-card',
        principal_entity_id: 'ns:entity:person:bench-principal',
        state: 'active',
      },
      merchant: {
        merchant_id: 'bench-grocer',
        category: change.category ?? '5411',
        jurisdiction: 'DE',
        state: 'active',
      },
      counters,
      local_time: localTime,
    },
  };
}

/** Pack `i` (1..5) of a variant, as a draft (the service signs it at publish). */
export function benchPack(variant: RuleVariant, i: number, now: Date): Record<string, unknown> {
  const name = packName(variant, i);
  const chosen = variant === 'request' ? requestRules(i) : pickFacts(requestRules(i), factRules(i, quietHours(now)), i);
  if (chosen.length !== RULES_PER_PACK) throw new Error(`pack ${name} has ${chosen.length} rules`);
  return {
    schema_version: 'ns.rule_pack.v1',
    pack_id: `ns:rule_pack:${name}`,
    version: PACK_VERSION,
    domain: 'purchase',
    title: `Benchmark pack ${i} (${variant === 'request' ? 'request and merchant facts' : 'counters and local time'})`,
    description:
      'Ten realistic purchase rules none of which matches the rule-packs benchmark purchase (bench/rule-packs).',
    dictionaries: DICTIONARIES,
    reasons: chosen.map((rule) => ({ code: rule.rule_id, decision: rule.effect, description: rule.title })),
    rules: chosen.map((rule) => ({
      ...rule,
      description: `${rule.title}: ${rule.effect === 'deny' ? 'denied' : 'the principal decides'}.`,
      reason: `${name}.${rule.rule_id}`,
    })),
    tests: [
      { name: 'an ordinary purchase', context: benchContext(now), expect: { effect: 'none' } },
      {
        name: 'a purchase the first rule catches',
        context: benchContext(now, { amount: 200_000 * i + 100 }),
        expect: { effect: 'deny', reason: `${name}.amount_hard_cap` },
      },
    ],
  };
}

/**
 * facts variant: five request rules (the hard cap first: the second test relies on it) alternating with five fact
 * rules, every other one of the ten from pack to pack (each half reads both counters and local time).
 */
function pickFacts(request: BenchRule[], facts: BenchRule[], i: number): BenchRule[] {
  const keep = [request[1]!, request[3]!, request[6]!, request[8]!, request[9]!];
  const read = [0, 2, 4, 6, 8].map((k) => facts[(k + i - 1) % facts.length]!);
  return keep.flatMap((rule, k) => [rule, read[k]!]);
}
