/**
 * The graph benchmark's plumbing, once through with small numbers (no timing assertions): a store with a few
 * thousand grants, every query answered and checked (the run throws on any wrong answer), a baseline per dialect.
 */
import { describe, expect, it } from 'vitest';
import { runGraphBench } from './graph.ts';

describe('graph benchmark', () => {
  it('runs every query a few times against the baseline', async () => {
    const report = await runGraphBench({ rounds: 2, aliceFiller: 150, bobFiller: 2_000 });
    const baselines = report.measurements.filter((m) => m.baseline);
    expect(baselines.length).toBeGreaterThanOrEqual(1);
    expect(report.measurements.length).toBe(baselines.length * 8);
    expect(report.measurements.every((m) => m.samples === 2)).toBe(true);
  }, 300_000);
});
