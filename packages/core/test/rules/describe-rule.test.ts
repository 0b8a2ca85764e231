/**
 * describeRule: a rule of the strict profile in plain English, as the console shows it beside the JSON. The cases are
 * the shapes shipped packs use (velocity, time windows, first-time merchant, dictionaries, basket categories), plus
 * what a draft outside the profile or a hostile document may hold: never a throw, never an unbounded walk.
 */
import { describe, expect, it } from 'vitest';
import { describeRule } from '../../src/rules/describe-rule.ts';

const v = (path: string) => ({ var: path });

describe('describeRule', () => {
  it.each([
    [{ '>=': [v('facts.counters.purchases_1h'), 5] }, "the principal's purchases in the last hour is at least 5"],
    [{ '<=': [1, v('facts.local_time.hour'), 4] }, 'local hour is between 1 and 4'],
    [{ '<': [0, v('facts.local_time.hour'), 5] }, 'local hour is between 0 and 5 (both excluded)'],
    // a literal on the left is turned round so the fact leads
    [
      { '<': [3, v('facts.counters.agent_purchases_24h')] },
      "this agent's purchases in the last 24 hours is more than 3",
    ],
    [{ '>': [v('request.amount.minor'), 15000] }, 'the amount is more than 15000 minor units'],
    [
      { '>': [{ '+': [v('facts.counters.spend_24h_minor'), v('request.amount.minor')] }, 15000] },
      "the principal's spend in the last 24 hours plus the amount is more than 15000 minor units",
    ],
    [{ '===': [v('request.amount.currency'), 'EUR'] }, 'the currency is "EUR"'],
    [{ '!==': [v('facts.merchant.jurisdiction'), 'DE'] }, 'the merchant\'s country is not "DE"'],
    [v('facts.counters.merchant_first_purchase'), 'the principal never bought from this merchant before'],
    [{ '!': v('facts.counters.merchant_first_purchase') }, 'the principal bought from this merchant before'],
    [
      { '===': [v('facts.counters.merchant_first_purchase'), true] },
      'the principal never bought from this merchant before',
    ],
    [{ '!==': [v('facts.counters.merchant_first_purchase'), true] }, 'the principal bought from this merchant before'],
    [
      { '!': { in: [v('facts.merchant.jurisdiction'), v('dict.jurisdiction_group.terms.eea.countries')] } },
      'the merchant\'s country is not one of the countries of term "eea" in dictionary jurisdiction_group',
    ],
    [
      { in: [v('facts.merchant.jurisdiction'), v('dict.high_risk_jurisdiction.codes')] },
      "the merchant's country is one of the codes of dictionary high_risk_jurisdiction",
    ],
    [{ in: [v('facts.merchant.category'), ['7995', '7801']] }, 'the merchant category is one of "7995" or "7801"'],
    [{ '!': { in: [v('facts.merchant.category'), ['5411']] } }, 'the merchant category is not one of "5411"'],
    [{ in: [6, [6, 7]] }, '6 is one of 6 or 7'],
    [true, 'always'],
    [false, 'never'],
  ] as [unknown, string][])('%j', (rule, words) => {
    expect(describeRule(rule)).toBe(words);
  });

  it('joins clauses with and/or, bracketing a joint inside another', () => {
    expect(
      describeRule({
        and: [
          { '>': [v('request.amount.minor'), 5000] },
          { or: [v('facts.counters.merchant_first_purchase'), { '>=': [v('facts.local_time.weekday'), 6] }] },
        ],
      }),
    ).toBe(
      'the amount is more than 5000 minor units and (the principal never bought from this merchant before or ' +
        'local weekday (1 = Monday, 7 = Sunday) is at least 6)',
    );
    expect(describeRule({ and: [true, false, true] })).toBe('always, never and always');
  });

  it('reads some/all/none over the basket with the item as the subject', () => {
    expect(
      describeRule({
        some: [v('request.basket.items'), { in: [v('category'), ['alcohol', 'tobacco']] }],
      }),
    ).toBe('at least one of the basket\'s items matches: the item\'s category is one of "alcohol" or "tobacco"');
    // inside some/all/none, JsonLogic reads the item, never the context: the words say so
    expect(describeRule({ some: [v('request.basket.items'), { in: [v('category'), v('dict.goods.codes')] }] })).toBe(
      "at least one of the basket's items matches: the item's category is one of the item's dict goods codes",
    );
    expect(describeRule({ none: [v('request.basket.items'), { '>': [v('unit_price.minor'), 100] }] })).toBe(
      "none of the basket's items matches: the item's unit_price minor is more than 100 minor units",
    );
    expect(describeRule({ all: [[1, 2], { '>': [v(''), 0] }] })).toBe(
      '1 and 2 is not empty and every one matches: the item is more than 0',
    );
  });

  it('reads if, missing, missing_some, defaults, dictionary terms and arithmetic', () => {
    expect(
      describeRule({
        if: [{ '===': [v('request.amount.currency'), 'EUR'] }, { '>': [v('request.amount.minor'), 5000] }, false],
      }),
    ).toBe('if the currency is "EUR" then the amount is more than 5000 minor units, otherwise never');
    expect(describeRule({ missing: ['facts.counters.purchases_1h'] })).toBe(
      "the principal's purchases in the last hour is missing",
    );
    expect(describeRule({ '!': { missing: ['request.amount.minor'] } })).toBe('the amount is present');
    expect(describeRule({ missing_some: [1, ['request.merchant_id', 'request.instrument_id']] })).toBe(
      'fewer than 1 of the merchant and the card token are present',
    );
    expect(describeRule({ '>': [{ var: ['facts.counters.purchases_24h', 0] }, 20] })).toBe(
      "the principal's purchases in the last 24 hours (0 when absent) is more than 20",
    );
    expect(describeRule({ '===': [v('dict.mcc.terms.7995.risk'), 'high'] })).toBe(
      'the risk of term "7995" in dictionary mcc is "high"',
    );
    expect(describeRule({ '===': [{ '%': [v('facts.local_time.minute'), 15] }, 0] })).toBe(
      'the remainder of local minute divided by 15 is 0',
    );
    expect(describeRule({ '>': [{ '-': [v('facts.counters.spend_30d_minor'), 500] }, { max: [1, 2] }] })).toBe(
      "the principal's spend in the last 30 days minus 500 minor units is more than the largest of 1 and 2",
    );
    expect(describeRule({ '===': [{ substr: [v('facts.local_time.date'), 5, 2] }, '12'] })).toBe(
      'the part of local date from position 5, 2 characters long is "12"',
    );
    expect(describeRule({ in: ['gift', { cat: ['a', v('request.action')] }] })).toBe(
      '"gift" is in the text "a" and the action joined',
    );
  });

  it('names unknown paths as written and shows what lies outside the profile as its JSON', () => {
    expect(describeRule({ '===': [v('request.context.channel'), 'app'] })).toBe('request.context.channel is "app"');
    expect(describeRule({ '==': [v('a'), 1] })).toBe('{"==":[{"var":"a"},1]} is true');
    expect(describeRule({ '>': [{ log: 1 }, 2] })).toBe('{"log":1} is more than 2');
    expect(describeRule({ a: 1, b: 2 })).toBe('{"a":1,"b":2} is true');
    expect(describeRule('text')).toBe('"text" is true');
  });

  it('stops at a bounded depth instead of walking a hostile nesting', () => {
    let deep: unknown = true;
    for (let i = 0; i < 10_000; i += 1) deep = { '!!': deep };
    expect(describeRule(deep)).toBe('…');
    let wide: unknown = v('x');
    for (let i = 0; i < 100; i += 1) wide = { and: [wide, true] };
    expect(describeRule(wide)).toContain('…');
  });

  it('shortens a long literal list', () => {
    const codes = Array.from({ length: 12 }, (_, i) => String(i));
    expect(describeRule({ in: [v('facts.merchant.category'), codes] })).toBe(
      'the merchant category is one of "0", "1", "2", "3", "4", "5", "6", "7" or 4 more',
    );
  });
});
