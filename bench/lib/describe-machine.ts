import os from 'node:os';

export interface MachineDescription {
  cpuModel: string;
  cpuCount: number;
  totalMemoryGiB: number;
  freeMemoryGiB: number;
  /** 1-minute load average when the run started: on a shared machine, a high value explains noisy numbers */
  loadAverage1m: number;
  node: string;
  v8: string;
  platform: string;
}

export function describeMachine(): MachineDescription {
  const cpus = os.cpus();
  const gib = (bytes: number) => Math.round((bytes / 2 ** 30) * 10) / 10;
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryGiB: gib(os.totalmem()),
    freeMemoryGiB: gib(os.freemem()),
    loadAverage1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  };
}

export function formatMachine(machine: MachineDescription): string[] {
  return [
    `CPU: ${machine.cpuModel} × ${machine.cpuCount}`,
    `memory: ${machine.totalMemoryGiB} GiB (${machine.freeMemoryGiB} GiB free)`,
    `load average (1 min) at start: ${machine.loadAverage1m}`,
    `Node ${machine.node} (V8 ${machine.v8}), ${machine.platform}`,
  ];
}
