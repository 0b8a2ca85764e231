/** Walks vectors/marketplace/: every case's score and component values, and every refused input. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeTrustScore, type TrustScoreInputs } from '../../src/index.ts';

interface Case {
  desc: string;
  input: TrustScoreInputs;
  want?: { score: number; values: Record<string, number> };
  wantErr?: string;
}

const cases = JSON.parse(
  readFileSync(new URL('../../../../vectors/marketplace/trust-score-cases.json', import.meta.url), 'utf8'),
) as Case[];

describe('vectors/marketplace/trust-score-cases.json', () => {
  it('has both kinds of case', () => {
    expect(cases.filter((c) => c.want).length).toBeGreaterThan(10);
    expect(cases.filter((c) => c.wantErr).length).toBeGreaterThan(2);
  });

  it.each(cases.map((c) => [c.desc, c] as const))('%s', (_desc, c) => {
    if (c.wantErr !== undefined) {
      expect(() => computeTrustScore(c.input)).toThrow(expect.objectContaining({ code: c.wantErr }));
      return;
    }
    const got = computeTrustScore(c.input);
    expect(got.score).toBe(c.want!.score);
    expect(Object.fromEntries(got.components.map((x) => [x.name, x.value]))).toEqual(c.want!.values);
    expect(got.computed_at).toBe(c.input.as_of);
  });
});
