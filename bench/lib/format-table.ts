import type { RatedMeasurement } from './attach-ratios.ts';
import { formatDuration, formatPercent, formatRate, formatRatio } from './format-numbers.ts';

const HEADERS = ['group', 'task', 'ops/s', 'mean', 'p50', 'p99', 'rme', 'samples', 'vs baseline'] as const;
/** Numeric columns are right-aligned. */
const RIGHT = new Set([2, 3, 4, 5, 6, 7, 8]);

function toCells(m: RatedMeasurement): string[] {
  return [
    m.group,
    m.name,
    formatRate(m.opsPerSecond),
    formatDuration(m.meanMs),
    formatDuration(m.p50Ms),
    formatDuration(m.p99Ms),
    formatPercent(m.rmePercent),
    m.samples.toLocaleString('en-US'),
    formatRatio(m.ratio, m.baseline),
  ];
}

/** A fixed-width table for the terminal. */
export function formatTextTable(measurements: readonly RatedMeasurement[]): string {
  const rows = [[...HEADERS], ...measurements.map(toCells)];
  const widths = HEADERS.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, col) => (RIGHT.has(col) ? cell.padStart(widths[col] ?? 0) : cell.padEnd(widths[col] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(rows[0] ?? []), rule, ...rows.slice(1).map(line)].join('\n');
}

/** A GitHub-flavoured Markdown table for RESULTS.md. */
export function formatMarkdownTable(measurements: readonly RatedMeasurement[]): string {
  const escape = (cell: string) => cell.replaceAll('|', '\\|');
  const line = (row: readonly string[]) => `| ${row.map(escape).join(' | ')} |`;
  const align = HEADERS.map((_, col) => (RIGHT.has(col) ? '---:' : ':---'));
  return [line(HEADERS), line(align), ...measurements.map((m) => line(toCells(m)))].join('\n');
}
