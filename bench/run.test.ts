import { describe, expect, it } from 'vitest';
import { attachRatios } from './lib/attach-ratios.ts';
import type { Benchmark, Measurement } from './lib/bench-report.ts';
import { formatMarkdownTable } from './lib/format-table.ts';
import { BENCHMARKS, selectBenchmarks } from './run.ts';

const fake = (name: string): Benchmark => ({
  name,
  description: name,
  run: () => Promise.reject(new Error('not run in tests')),
});

describe('selectBenchmarks', () => {
  const all = [fake('decide-vs-cedar'), fake('http-authorize'), fake('http-authorize-batch')];

  it('runs everything without a name, in registry order', () => {
    expect(selectBenchmarks([], all).map((b) => b.name)).toEqual(all.map((b) => b.name));
  });

  it('selects by prefix, and an exact name only itself', () => {
    expect(selectBenchmarks(['decide'], all).map((b) => b.name)).toEqual(['decide-vs-cedar']);
    expect(selectBenchmarks(['http-authorize'], all).map((b) => b.name)).toEqual(['http-authorize']);
    expect(selectBenchmarks(['http'], all)).toHaveLength(2);
  });

  it('refuses an unknown name', () => {
    expect(() => selectBenchmarks(['nope'], all)).toThrow(/nope/);
  });

  it('registers benchmarks with unique kebab-case names', () => {
    const names = BENCHMARKS.map((b) => b.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
});

describe('attachRatios', () => {
  const m = (group: string, name: string, meanMs: number, baseline?: boolean): Measurement => ({
    group,
    name,
    meanMs,
    opsPerSecond: 1000 / meanMs,
    samples: 10,
    ...(baseline ? { baseline } : {}),
  });

  it('rates each measurement against the baseline of its own group', () => {
    const rated = attachRatios([m('a', 'slow', 2, true), m('a', 'fast', 0.5), m('b', 'other', 1)]);
    expect(rated.map((r) => r.ratio)).toEqual([1, 4, undefined]);
    expect(formatMarkdownTable(rated)).toContain('4.00×');
  });

  it('refuses two baselines in one group', () => {
    expect(() => attachRatios([m('a', 'x', 1, true), m('a', 'y', 1, true)])).toThrow();
  });
});
