/**
 * Walks vectors/bundles: the valid bundles pass all ten checks; each mutated bundle fails exactly the checks its
 * vector names and passes every other one, and there is a failing case for every one of the ten checks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUNDLE_CHECKS, verifyBundle, type Jwks } from '../../src/index.ts';

const DIR = fileURLToPath(new URL('../../../../vectors/bundles/', import.meta.url));

interface Vector {
  desc: string;
  input: { bundle: unknown; jwks: Jwks; origin: string };
  want: { valid: boolean; failing: string[] };
}

const vectors = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(DIR + file, 'utf8')) as Vector) }));

describe('proof bundle vectors (vectors/bundles)', () => {
  it('holds valid bundles and a case failing each of the ten checks alone', () => {
    expect(vectors.filter((v) => v.want.valid).length).toBeGreaterThanOrEqual(2);
    const alone = vectors.filter((v) => v.want.failing.length === 1).map((v) => v.want.failing[0]);
    expect(new Set(alone)).toEqual(new Set(BUNDLE_CHECKS));
  });

  it.each(vectors.map((v) => [v.file, v] as const))('%s', async (_file, vector) => {
    const result = await verifyBundle(vector.input.bundle, vector.input.jwks, { origin: vector.input.origin });
    expect(result.checks.map((c) => c.name)).toEqual([...BUNDLE_CHECKS]);
    const failing = result.checks.filter((c) => !c.ok);
    expect(
      failing.map((c) => c.name),
      JSON.stringify(failing),
    ).toEqual(vector.want.failing);
    expect(result.valid).toBe(vector.want.valid);
    for (const c of failing) expect(c.detail, c.name).toMatch(/\S/);
  });
});
