import type { Measurement } from './bench-report.ts';

export interface RatedMeasurement extends Measurement {
  /** baseline mean / this mean: 3 means three times as fast as the baseline; undefined without a baseline */
  ratio?: number;
}

/** Rates every measurement against its group's baseline; throws when a group names two baselines. */
export function attachRatios(measurements: readonly Measurement[]): RatedMeasurement[] {
  const baselines = new Map<string, Measurement>();
  for (const m of measurements) {
    if (!m.baseline) continue;
    if (baselines.has(m.group)) throw new Error(`group \`${m.group}\` has two baselines`);
    baselines.set(m.group, m);
  }
  return measurements.map((m) => {
    const baseline = baselines.get(m.group);
    return baseline ? { ...m, ratio: baseline.meanMs / m.meanMs } : { ...m };
  });
}
