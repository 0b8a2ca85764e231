/**
 * docs/errors.md against the error-code union (core/src/errors/aar-error.ts) and the one place codes meet HTTP
 * statuses (http/problem.ts): every code has a row with its status and when it is answered, and no row names a code
 * the union does not have or a status the service does not send for it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STATUS_BY_CODE } from '../../src/http/problem.ts';
import { codeSpans, readRepositoryFile, tableRows } from './markdown.ts';

/** The members of `export type ErrorCode = | 'a' | 'b' …`, read from the source so a new member is seen. */
function errorCodeUnion(): string[] {
  const source = readFileSync(new URL('../../../core/src/errors/aar-error.ts', import.meta.url), 'utf8');
  const withoutComments = source.replace(/\/\/[^\n]*/g, '');
  const union = /export type ErrorCode =([^;]+);/.exec(withoutComments)?.[1];
  if (union === undefined) throw new Error('no `export type ErrorCode` in aar-error.ts');
  return [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
}

describe('docs/errors.md', () => {
  const rows = tableRows(readRepositoryFile('docs/errors.md')).map((cells) => {
    const [codeCell = '', status = '', when = ''] = cells;
    return { code: codeSpans(codeCell)[0] ?? codeCell, status: Number(status), when };
  });
  const union = errorCodeUnion();

  it('reads the union problem.ts maps (the parse itself works)', () => {
    expect([...union].sort()).toEqual(Object.keys(STATUS_BY_CODE).sort());
  });

  it('lists every error code, each once', () => {
    const listed = rows.map((r) => r.code);
    expect(union.filter((code) => !listed.includes(code))).toEqual([]);
    expect(listed.filter((code, i) => listed.indexOf(code) !== i)).toEqual([]);
  });

  it('lists no code the union does not have', () => {
    expect(rows.map((r) => r.code).filter((code) => !union.includes(code))).toEqual([]);
  });

  it('gives each code the status problem.ts answers it with, and says when', () => {
    for (const row of rows) {
      expect(row.status, row.code).toBe(STATUS_BY_CODE[row.code as keyof typeof STATUS_BY_CODE]);
      expect(row.when.length, row.code).toBeGreaterThan(10);
    }
  });
});
