/**
 * The pure half of the conformance kit: templates, subset matches, pointer predicates and the fixture parser. A
 * runner that passed on a wrong answer would make every fixture worthless, so the failure paths matter most here.
 */
import { describe, expect, it } from 'vitest';
import { checkPredicate, matchSubset, parseFixture, readPointer, resolveTemplate } from '../../src/index.ts';

const vars: Record<string, unknown> = {
  grant: { grant_id: 'ns:authority:grant:1', scope: { limits: [10, 20] } },
  run: 'abc',
  amount: 30,
};
const lookup = (head: string) => vars[head];

describe('resolveTemplate', () => {
  it('substitutes whole values with their type, and scalars inside strings', () => {
    expect(resolveTemplate('{{grant}}', lookup)).toEqual(vars.grant);
    expect(resolveTemplate('{{ amount }}', lookup)).toBe(30);
    expect(resolveTemplate({ id: 'x-{{run}}-{{grant.scope.limits.1}}' }, lookup)).toEqual({ id: 'x-abc-20' });
  });

  it('merges, patches and passes literals through', () => {
    expect(resolveTemplate({ $merge: [{ a: { b: 1, c: 2 } }, { a: { c: '{{amount}}' } }] }, lookup)).toEqual({
      a: { b: 1, c: 30 },
    });
    const patched = resolveTemplate({ $patch: ['{{grant}}', { '/scope/limits/0': 99, '/new': true }] }, lookup);
    expect(patched).toEqual({ grant_id: 'ns:authority:grant:1', scope: { limits: [99, 20] }, new: true });
    expect(vars.grant).toEqual({ grant_id: 'ns:authority:grant:1', scope: { limits: [10, 20] } });
    expect(resolveTemplate({ $literal: '{{run}}' }, lookup)).toBe('{{run}}');
  });

  it('refuses an unknown variable, a missing member and an object inside a string', () => {
    expect(() => resolveTemplate('{{nope}}', lookup)).toThrow('`nope` is not defined');
    expect(() => resolveTemplate('{{grant.missing}}', lookup)).toThrow('`missing` is not there');
    expect(() => resolveTemplate('id {{grant}}', lookup)).toThrow('must be a scalar');
    expect(() => resolveTemplate({ $patch: ['{{grant}}', { '/a/b': 1 }] }, lookup)).toThrow('is not there');
  });
});

describe('matchSubset', () => {
  it('ignores extra members but not missing or different ones, and names each by pointer', () => {
    expect(matchSubset({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } })).toEqual([]);
    expect(matchSubset({ a: 1, b: { c: 2 } }, { a: '1', b: { e: 1 } })).toEqual([
      { pointer: '/a', message: 'expected "1", got 1' },
      { pointer: '/b/e', message: 'is missing' },
    ]);
  });

  it('holds arrays to their length and order', () => {
    expect(matchSubset([1, 2], [1, 2])).toEqual([]);
    expect(matchSubset([1, 2, 3], [1, 2])).toEqual([{ pointer: '', message: 'expected 2 items, got 3' }]);
    expect(matchSubset([2, 1], [1, 2])).toHaveLength(2);
    expect(matchSubset(undefined, { a: 1 })).toEqual([{ pointer: '', message: 'expected an object, got nothing' }]);
  });
});

describe('checkPredicate', () => {
  const doc = {
    items: [
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ],
    code: 'not_found',
    n: 5,
    s: 'abc',
  };
  it('passes what holds', () => {
    for (const p of [
      { pointer: '/items', length: 2, contains: { id: 'b' }, not_contains: { id: 'c' }, type: 'array' as const },
      { pointer: '/code', equals: 'not_found', matches: '^not_', one_of: ['x', 'not_found'] },
      { pointer: '/n', gte: 5, lte: 5, gt: 4, lt: 6, type: 'integer' as const },
      { pointer: '/missing', exists: false },
      { pointer: '/items/1', subset: { n: 2 } },
    ]) {
      expect(checkPredicate(doc, p), JSON.stringify(p)).toEqual([]);
    }
  });

  it('fails what does not, each test on its own', () => {
    expect(checkPredicate(doc, { pointer: '/n', gt: 5, lt: 5 })).toHaveLength(2);
    expect(checkPredicate(doc, { pointer: '/items', contains: { id: 'c' } })).toHaveLength(1);
    expect(checkPredicate(doc, { pointer: '/items', not_contains: { id: 'a' } })).toHaveLength(1);
    expect(checkPredicate(doc, { pointer: '/code', exists: false })).toHaveLength(1);
    expect(checkPredicate(doc, { pointer: '/nope', equals: 1 })).toEqual([{ pointer: '/nope', message: 'is missing' }]);
    expect(checkPredicate(doc, { pointer: '/s', type: 'number' })).toHaveLength(1);
    expect(checkPredicate({ s: 'abc' }, { pointer: '/s', matches: '^b' })).toHaveLength(1);
  });

  it('reads only own members', () => {
    expect(readPointer({}, '/constructor')).toEqual({ found: false });
    expect(readPointer({ 'a/b': { '~': 1 } }, '/a~1b/~0')).toEqual({ found: true, value: 1 });
  });
});

describe('parseFixture', () => {
  const ok = {
    fixture_id: 'core.example',
    profile: 'ns.core.v1',
    title: 'An example',
    steps: [{ id: 'a', request: { path: '/healthz' }, expect: { status: 200 } }, { request: { repeat: 'a' } }],
  };
  it('accepts a well-formed fixture', () => {
    expect(parseFixture(ok)).toEqual(ok);
  });

  it('refuses typos and impossible steps, naming the member', () => {
    const refused = (change: Record<string, unknown>, path: string) => {
      try {
        parseFixture({ ...ok, ...change });
      } catch (error) {
        expect((error as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toContain(path);
        return;
      }
      throw new Error(`accepted ${JSON.stringify(change)}`);
    };
    refused({ profile: 'ns.nope.v1' }, '/profile');
    refused({ fixture_id: 'NoDots' }, '/fixture_id');
    refused({ steps: [{ request: { path: '/x' }, expect: { stauts: 200 } }] }, '/steps/0/expect/stauts');
    refused(
      { steps: [{ request: { repeat: 'later' } }, { id: 'later', request: { path: '/x' } }] },
      '/steps/0/request/repeat',
    );
    refused(
      { steps: [{ request: { path: '/x' }, expect: { pointers: [{ pointer: '/a' }] } }] },
      '/steps/0/expect/pointers/0',
    );
    refused({ steps: [{ request: { path: '/x' }, expect: { verify: [{ magic: '' }] } }] }, '/steps/0/expect/verify/0');
    refused({ steps: [{ request: { path: 'x' } }] }, '/steps/0/request/path');
  });
});
