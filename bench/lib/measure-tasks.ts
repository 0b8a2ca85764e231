import { Bench } from 'tinybench';
import type { Measurement } from './bench-report.ts';

export interface TimedTask {
  group: string;
  name: string;
  /** synchronous work of one iteration; its result is kept so the JIT cannot drop the call */
  fn: () => unknown;
  baseline?: boolean;
}

export interface MeasureTasksOptions {
  /** minimum timed milliseconds per task (tinybench also runs at least 64 iterations) */
  timeMs: number;
  warmupMs: number;
}

/** Keeps every result reachable; read by nothing. */
export let sink: unknown;

/** Runs the tasks one after the other (never concurrently: concurrent tasks would share the 2 cores). */
export async function measureTasks(tasks: readonly TimedTask[], options: MeasureTasksOptions): Promise<Measurement[]> {
  const bench = new Bench({ time: options.timeMs, warmupTime: options.warmupMs, throws: true });
  const key = (task: TimedTask) => `${task.group}\u0000${task.name}`;
  for (const task of tasks) {
    const { fn } = task;
    bench.add(key(task), () => {
      sink = fn();
    });
  }
  await bench.run();
  return tasks.map((task) => {
    const result = bench.getTask(key(task))?.result;
    if (!result || (result.state !== 'completed' && result.state !== 'aborted-with-statistics')) {
      throw new Error(`task \`${task.name}\` of \`${task.group}\` did not complete`);
    }
    const { latency } = result;
    const measurement: Measurement = {
      group: task.group,
      name: task.name,
      opsPerSecond: 1000 / latency.mean,
      meanMs: latency.mean,
      p50Ms: latency.p50,
      p99Ms: latency.p99,
      rmePercent: latency.rme,
      samples: latency.samplesCount,
    };
    if (task.baseline) measurement.baseline = true;
    return measurement;
  });
}
