/**
 * The mandate benchmark's plumbing, once through with small numbers (no timing assertions): a real `aar serve` with a
 * trusted AP2 issuer takes an open payment mandate and answers plain authorizes and authorizes presenting a fresh
 * closed mandate with allows only (the run checks every answer and throws otherwise).
 */
import { describe, expect, it } from 'vitest';
import { runMandatesBench } from './mandates.ts';

describe('mandates benchmark', () => {
  it('runs one small round of each group', async () => {
    const report = await runMandatesBench({ rounds: 1, roundRequests: 10, warmup: 5 });
    expect(report.measurements.map((m) => m.name)).toEqual([
      'plain authorize',
      'authorize + closed AP2 mandate',
      'plain authorize',
      'authorize + closed AP2 mandate',
    ]);
    expect(report.measurements.map((m) => m.samples)).toEqual([10, 10, 10, 10]);
    expect(report.notes[0]).toMatch(/mandate CPU ÷ plain CPU/);
  }, 120_000);
});
