import { describe, expect, it } from 'vitest';
import { runRevocationCascade, toMeasurement } from './revocation-cascade.ts';

describe('revocation-cascade benchmark plumbing', () => {
  it('runs small cascades and the cross-instance rounds, checking every answer', async () => {
    const report = await runRevocationCascade({ plan: [[50, 2]], crossInstanceRounds: 2 });
    const groups = new Set(report.measurements.map((m) => m.group));
    expect(groups.has('revoke a 50-grant subtree (sqlite)')).toBe(true);
    expect(report.measurements.some((m) => m.baseline && m.name.includes('insert 50 rows'))).toBe(true);
    for (const m of report.measurements) {
      expect(m.samples).toBeGreaterThan(0);
      expect(m.meanMs).toBeGreaterThan(0);
    }
  }, 120_000);

  it('summarises samples', () => {
    expect(toMeasurement('g', 'n', [3, 1, 2])).toMatchObject({ meanMs: 2, p50Ms: 2, p99Ms: 3, samples: 3 });
  });
});
