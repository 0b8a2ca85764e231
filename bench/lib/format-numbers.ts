/** A duration given in milliseconds, in the unit that keeps 3 significant digits readable. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 1e-3) return `${(ms * 1e6).toPrecision(3)} ns`;
  if (ms < 1) return `${(ms * 1e3).toPrecision(3)} µs`;
  if (ms < 1e3) return `${ms.toPrecision(3)} ms`;
  return `${(ms / 1e3).toPrecision(3)} s`;
}

export function formatRate(opsPerSecond: number): string {
  return Math.round(opsPerSecond).toLocaleString('en-US');
}

export function formatRatio(ratio: number | undefined, baseline: boolean | undefined): string {
  if (baseline) return '1.00× (baseline)';
  if (ratio === undefined) return '-';
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

export function formatPercent(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? '-' : `±${value.toFixed(1)} %`;
}
