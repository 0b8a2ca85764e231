/**
 * The AuthZEN benchmark's plumbing, once through with small numbers (no timing assertions): a real `aar serve` with a
 * PEP URL answers signed authorize calls, forwarded-signature AuthZEN evaluations and a batch of 50 with allows only
 * (the run checks every answer and throws otherwise), and the report has the groups the issue asks for.
 */
import { describe, expect, it } from 'vitest';
import { runAuthzenBench } from './authzen.ts';

describe('authzen benchmark', () => {
  it('runs one small round of each group', async () => {
    const report = await runAuthzenBench({ rounds: 1, roundRequests: 10, batches: 1, warmup: 5 });
    expect(report.measurements.map((m) => m.group)).toEqual([
      'CPU per decision: single',
      'CPU per decision: single',
      'decisions per second: single',
      'decisions per second: single',
      'CPU per decision: batch',
      'CPU per decision: batch',
      'decisions per second: batch',
      'decisions per second: batch',
    ]);
    expect(report.measurements.map((m) => m.samples)).toEqual([10, 10, 10, 10, 50, 50, 50, 50]);
    expect(report.notes[0]).toMatch(/façade CPU ÷ authorize CPU/);
  }, 120_000);
});
