/**
 * A control for the webhook bench's receiver-in-its-own-process groups: one busy loop per core under the idle
 * scheduling policy (SCHED_IDLE through util-linux's `chrt`), so no vCPU goes idle while they run. On the VMs this
 * bench runs on, a request that must wake an idle vCPU (the receiver process, then the sender again) pays tens of
 * microseconds for it; the worker, whose signing thread keeps a core busy, pays it less often than the plain POSTs,
 * which flatters the worker. With every core kept awake both sides pay only for their own work. Measured in session
 * 7: plain POSTs to the receiver process took 37-57 µs each with the loops, 63-80 µs without (bench/RESULTS.md).
 * SCHED_IDLE rather than nice 19: any other thread that wakes preempts a SCHED_IDLE loop at once, while a nice-19
 * loop still kept a share of the cores (measured: the worker, with two busy threads, lost to it). Without `chrt`
 * the loops run at nice 19. They stop by themselves after `maxMs`, and are killed by `stop()`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';

export interface AwakeCores {
  /** `sched_idle` (the loops never take a core from a runnable thread) or `nice 19` (no `chrt` here) */
  policy: 'sched_idle' | 'nice 19';
  stop(): void;
}

export function keepCoresAwake(maxMs = 120_000): AwakeCores {
  const loops: ChildProcess[] = [];
  const loop = [process.execPath, '-e', `const end = Date.now() + ${maxMs}; while (Date.now() < end) {}`];
  const idlePolicy = spawnSync('chrt', ['--idle', '0', 'true']).status === 0;
  for (let i = 0; i < os.availableParallelism(); i++) {
    const child = idlePolicy
      ? spawn('chrt', ['--idle', '0', ...loop], { stdio: 'ignore' })
      : spawn(loop[0]!, loop.slice(1), { stdio: 'ignore' });
    if (!idlePolicy && child.pid !== undefined) os.setPriority(child.pid, 19);
    loops.push(child);
  }
  return {
    policy: idlePolicy ? 'sched_idle' : 'nice 19',
    stop: () => {
      for (const child of loops) child.kill('SIGKILL');
    },
  };
}
