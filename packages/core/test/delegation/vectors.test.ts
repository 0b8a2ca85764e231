/**
 * Walks vectors/delegation: every valid chain verifies with no problem; every mutated chain fails, and each problem
 * its vector names (code, link index, field) is among those reported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyDelegationChain, type Jwks } from '../../src/index.ts';

const DIR = fileURLToPath(new URL('../../../../vectors/delegation/', import.meta.url));

interface Vector {
  desc: string;
  input: { chain: unknown; jwks: Jwks; now: string };
  want: { valid: boolean; problems: Array<{ code: string; index: number | null; field?: string }> };
}

const vectors = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(DIR + file, 'utf8')) as Vector) }));

describe('delegation chain vectors (vectors/delegation)', () => {
  it('holds valid chains and at least 25 mutated failures', () => {
    expect(vectors.filter((v) => v.want.valid).length).toBeGreaterThanOrEqual(3);
    expect(vectors.filter((v) => !v.want.valid).length).toBeGreaterThanOrEqual(25);
  });

  it.each(vectors.map((v) => [v.file, v] as const))('%s', async (_file, vector) => {
    const result = await verifyDelegationChain(vector.input.chain, vector.input.jwks, vector.input.now);
    expect(result.valid, JSON.stringify(result.problems)).toBe(vector.want.valid);
    if (vector.want.valid) {
      expect(result.problems).toEqual([]);
      return;
    }
    for (const want of vector.want.problems) {
      const match = result.problems.find(
        (p) => p.code === want.code && p.index === want.index && (want.field === undefined || p.field === want.field),
      );
      expect(match, `${JSON.stringify(want)} in ${JSON.stringify(result.problems)}`).toBeDefined();
      if (want.index !== null)
        expect(match?.grant_id).toBe(
          (vector.input.chain as { links: Array<{ grant_id: string }> }).links[want.index]?.grant_id,
        );
    }
  });
});
