/**
 * The contract between a benchmark and the runner (bench/run.ts). A benchmark measures; the runner selects, prints
 * and records. Times are milliseconds, as tinybench and autocannon report them.
 */

/** One timed task. Ratios are computed within a `group`, against the one measurement of it marked `baseline`. */
export interface Measurement {
  /** what is compared, e.g. the input case (`allow`) or the endpoint */
  group: string;
  /** what ran, e.g. `core decide` */
  name: string;
  /** 1000 / meanMs: the reciprocal of the mean latency, not the mean of per-sample rates */
  opsPerSecond: number;
  meanMs: number;
  /** omitted where the tool gives no distribution */
  p50Ms?: number;
  p99Ms?: number;
  /** relative margin of error of the mean, percent (95 %) */
  rmePercent?: number;
  /** number of timed iterations (or requests) behind the statistics */
  samples: number;
  /** the measurement every other one of its group is compared with; at most one per group */
  baseline?: boolean;
}

export interface BenchReport {
  name: string;
  description: string;
  measurements: Measurement[];
  /** library versions, caveats: printed under the table and kept in RESULTS.md */
  notes: string[];
}

/** What each benchmark file exports; add it to the list in bench/run.ts. */
export interface Benchmark {
  /** kebab-case, unique; `npm run bench -- <name or prefix>` selects it */
  name: string;
  description: string;
  /** Must finish in well under a minute on a 2-core machine: the whole run is budgeted at ~2 minutes. */
  run(): Promise<BenchReport>;
}
