import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandPointerTemplate } from '../../src/compliance/expand-pointer-template.ts';
import { resolvePointer } from '../../src/compliance/resolve-pointer.ts';

interface PointerCase {
  desc: string;
  pointer: string;
  want?: unknown;
  want_found?: false;
}
const vectors = JSON.parse(
  readFileSync(new URL('../../../../vectors/compliance/rfc6901-pointers.json', import.meta.url), 'utf8'),
) as { document: unknown; cases: PointerCase[] };

describe('resolvePointer: RFC 6901 section 5 and refusals (vectors/compliance/rfc6901-pointers.json)', () => {
  it.each(vectors.cases.map((c) => [c.desc, c] as const))('%s', (_desc, c) => {
    const got = resolvePointer(vectors.document, c.pointer);
    if (c.want_found === false) expect(got).toEqual({ found: false });
    else expect(got).toEqual({ found: true, value: c.want });
  });
});

describe('expandPointerTemplate', () => {
  const doc = { a: [{ b: 1 }, { b: 2 }, { c: 3 }], 'x/y': { p: 1, q: 2 } };

  it('expands `{*}` over array indices and object members, keeping only what exists', () => {
    expect(expandPointerTemplate(doc, '/a/{*}/b')).toEqual([
      { pointer: '/a/0/b', value: 1 },
      { pointer: '/a/1/b', value: 2 },
    ]);
    expect(expandPointerTemplate(doc, '/x~1y/{*}')).toEqual([
      { pointer: '/x~1y/p', value: 1 },
      { pointer: '/x~1y/q', value: 2 },
    ]);
  });

  it('every expansion resolves to the value it carries', () => {
    for (const template of ['/a/{*}', '/a/{*}/{*}', '/{*}/{*}', '/{*}']) {
      for (const e of expandPointerTemplate(doc, template)!) {
        expect(resolvePointer(doc, e.pointer)).toEqual({ found: true, value: e.value });
      }
    }
  });

  it('a member literally named `{*}` is only reachable through the wildcard; a scalar has no members', () => {
    expect(expandPointerTemplate({ '{*}': 5 }, '/{*}')).toEqual([{ pointer: '/{*}', value: 5 }]);
    expect(expandPointerTemplate({ a: 1 }, '/a/{*}')).toEqual([]);
  });

  it('refuses a malformed template', () => {
    expect(expandPointerTemplate(doc, 'a/b')).toBeUndefined();
    expect(expandPointerTemplate(doc, '/a~2')).toBeUndefined();
  });
});
