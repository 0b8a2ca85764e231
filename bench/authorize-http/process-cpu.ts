/**
 * CPU time a child process has used, from /proc (Linux only; undefined elsewhere). Unlike latency and throughput,
 * CPU time per request barely moves when other processes compete for the cores: on a shared machine it is the
 * steadiest number of the benchmark. Resolution is the kernel's clock tick (usually 10 ms), fine over seconds.
 */
import { readFileSync } from 'node:fs';

/** USER_HZ: /proc reports ticks of 1/100 s whatever the kernel's own HZ (`getconf CLK_TCK`) */
const CLOCK_TICKS_PER_SECOND = 100;

/** user + system milliseconds of `pid`, or undefined when /proc cannot tell */
export function readProcessCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the command name (field 2) may contain spaces and parentheses: fields are counted from the last `)`
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1000) / CLOCK_TICKS_PER_SECOND;
}
