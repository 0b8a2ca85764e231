// The strict JsonLogic profile: every refusal, each with the pointer of the offending value.
import { describe, expect, it } from 'vitest';
import {
  INHERITED_PROPERTY_NAMES,
  MAX_RULE_DEPTH,
  MAX_RULE_NODES,
  checkRuleProfile,
  pathProblem,
} from '../../src/index.ts';

const at = (expr: unknown) => checkRuleProfile(expr, '/rules/3/when').map((p) => p.pointer);

describe('checkRuleProfile', () => {
  it('accepts every operator of the closed list', () => {
    const rule = {
      and: [
        { '===': [{ var: 'request.amount.minor' }, 1] },
        { '!==': [{ var: ['facts.merchant.category', '0000'] }, '5411'] },
        { '!': { '!!': [{ missing: ['request.merchant_id'] }] } },
        { or: [{ '<': [1, 2, 3] }, { '<=': [1, 2] }, { '>': [2, 1] }, { '>=': [2, 2] }] },
        { in: ['DE', { cat: ['D', 'E'] }] },
        { substr: ['abc', -2, -1] },
        { some: [{ var: 'request.basket.items' }, { '>': [{ var: 'price' }, 0] }] },
        { all: [[1, 2], { '>': [{ var: '' }, 0] }] },
        { none: [{ merge: [[1], 2] }, { '===': [{ var: '' }, 3] }] },
        { if: [{ min: [1, 2] }, { max: [3, 4] }, { '+': [1, { '-': [3, 1] }, { '*': [2, 2] }, { '%': [5, 2] }] }] },
        { missing_some: [1, ['facts.counters.purchases_1h', 'facts.local_time.hour']] },
        { var: 0 },
        { var: '' },
      ],
    };
    expect(checkRuleProfile(rule, '/rules/0/when')).toEqual([]);
  });

  it('accepts literals, -0 aside, as rules', () => {
    for (const literal of [true, null, 'x', 17, -9007199254740991, [1, 'a']]) expect(at(literal)).toEqual([]);
  });

  it.each(['==', '!=', '/', 'log', 'method', '?:', 'filter', 'map', 'reduce', 'toString', 'a.b', ''])(
    'refuses the operator %j with its pointer',
    (op) => {
      const problems = checkRuleProfile({ and: [true, { [op]: [1, 1] }] }, '/rules/3/when');
      expect(problems).toHaveLength(1);
      expect(problems[0]!.pointer).toBe(`/rules/3/when/and/1/${op.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      expect(problems[0]!.message).toContain('not in the profile');
    },
  );

  it('refuses non-integer and unsafe numbers wherever they are', () => {
    expect(at({ '>': [{ var: 'a' }, 1.5] })).toEqual(['/rules/3/when/>/1']);
    expect(at({ '+': [[9007199254740992]] })).toEqual(['/rules/3/when/+/0/0']);
    expect(at(1e300)).toEqual(['/rules/3/when']);
  });

  it('refuses literal objects: none or several members', () => {
    expect(at({ in: ['a', {}] })).toEqual(['/rules/3/when/in/1']);
    expect(at({ '===': 1, '!==': 2 })).toEqual(['/rules/3/when']);
  });

  it('refuses computed and malformed var paths', () => {
    expect(at({ var: { cat: ['a', 'b'] } })).toEqual(['/rules/3/when/var']);
    expect(at({ var: [{ var: 'x' }] })).toEqual(['/rules/3/when/var/0']);
    expect(at({ var: [] })).toEqual(['/rules/3/when/var']);
    expect(at({ var: ['a', 1, 2] })).toEqual(['/rules/3/when/var']);
    expect(at({ var: null })).toEqual(['/rules/3/when/var']);
    expect(at({ var: 1.5 })).toEqual(['/rules/3/when/var']);
    expect(at({ var: -1 })).toEqual(['/rules/3/when/var']);
    expect(at({ var: 'a..b' })).toEqual(['/rules/3/when/var']);
    expect(at({ var: 'a-b' })).toEqual(['/rules/3/when/var']);
    expect(at({ var: ['a', { '/': [1, 2] }] })).toEqual(['/rules/3/when/var/1/~1']);
  });

  it('refuses every inherited property name as a path segment', () => {
    for (const name of [
      'length',
      'constructor',
      '__proto__',
      'toString',
      'valueOf',
      'hasOwnProperty',
      'toFixed',
      'map',
    ]) {
      expect(at({ var: `request.${name}` })).toEqual(['/rules/3/when/var']);
      expect(pathProblem(`a.${name}.b`)).toContain('inherited');
    }
  });

  it('refuses computed and malformed missing / missing_some paths', () => {
    expect(at({ missing: { merge: ['a'] } })).toEqual(['/rules/3/when/missing']);
    expect(at({ missing: ['a', 'b.length'] })).toEqual(['/rules/3/when/missing/1']);
    expect(at({ missing: [['a', { var: 'x' }]] })).toEqual(['/rules/3/when/missing/0/1']);
    expect(at({ missing_some: [1, { merge: [['a']] }] })).toEqual(['/rules/3/when/missing_some/1']);
    expect(at({ missing_some: [1, ['a'], 3] })).toEqual(['/rules/3/when/missing_some']);
    expect(at({ missing_some: [1, ['a', '__proto__']] })).toEqual(['/rules/3/when/missing_some/1/1']);
  });

  it('refuses some / all / none without exactly [array, rule]', () => {
    expect(at({ some: [[1]] })).toEqual(['/rules/3/when/some']);
    expect(at({ all: { var: 'x' } })).toEqual(['/rules/3/when/all']);
  });

  it(`refuses more than ${MAX_RULE_DEPTH} levels, at the first value too deep`, () => {
    let deep: unknown = true;
    for (let i = 0; i < 15; i++) deep = { '!': [deep] }; // 1 + 2 * 15 = 31 levels
    expect(at(deep)).toEqual([]);
    expect(at({ '!': deep })).toEqual([]); // 32 levels
    const problems = checkRuleProfile({ '!': [deep] }, '');
    expect(problems).toHaveLength(1);
    expect(problems[0]!.pointer).toBe(`/!/0${'/!/0'.repeat(15)}`);
    expect(problems[0]!.message).toContain('deeper');
  });

  it(`refuses more than ${MAX_RULE_NODES} nodes`, () => {
    expect(at({ '+': Array.from({ length: MAX_RULE_NODES - 2 }, () => 1) })).toEqual([]);
    const problems = checkRuleProfile({ '+': Array.from({ length: MAX_RULE_NODES - 1 }, () => 1) }, '/rules/0/when');
    expect(problems).toEqual([
      { pointer: '/rules/0/when', message: `rule has 2001 nodes, at most ${MAX_RULE_NODES} allowed` },
    ]);
  });
});

describe('INHERITED_PROPERTY_NAMES', () => {
  it('is sorted and holds every property of the prototypes a JSON value inherits from', () => {
    expect([...INHERITED_PROPERTY_NAMES].sort()).toEqual(INHERITED_PROPERTY_NAMES);
    const computed = new Set<string>();
    for (const proto of [Object.prototype, Array.prototype, String.prototype, Number.prototype, Boolean.prototype]) {
      for (const name of Object.getOwnPropertyNames(proto)) computed.add(name);
    }
    expect(INHERITED_PROPERTY_NAMES.filter((name) => !computed.has(name))).toEqual([]);
    expect([...computed].filter((name) => !INHERITED_PROPERTY_NAMES.includes(name))).toEqual([]);
  });
});
