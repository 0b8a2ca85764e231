/**
 * How fast the CLI starts: `aar --version` until it exits, and `aar serve` until /healthz answers, for the compiled
 * build (what `npm ci` installs, dist/) against the TypeScript sources run through tsx (how `aar` ran before the
 * build, AAR_FROM_SOURCE=1): the baseline of each group, measured in the same run. A bare `node -e 0` is the floor.
 * `serve` restarts on a data dir that already holds its store and keys (the usual restart); the first start, which
 * creates both, is not measured. Goals (issue 11): under 0.5 s and under 2 s.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort, spawnChild } from './authorize-http/spawn-child.ts';
import type { Benchmark, BenchReport, Measurement } from './lib/bench-report.ts';
import { toMeasurement } from './revocation-cascade.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const AAR_BIN = join(ROOT, 'packages/server/bin/aar.js');

export interface CliStartupOptions {
  versionRuns: number;
  serveRuns: number;
}

const MODES = [
  { name: 'sources through tsx (before the build)', env: { AAR_FROM_SOURCE: '1' }, baseline: true },
  { name: 'compiled dist/ (after the build)', env: { AAR_FROM_SOURCE: '' }, baseline: false },
] as const;

async function timeExit(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
  return performance.now() - started;
}

async function timeServeUntilHealthy(dataDir: string, env: Record<string, string>): Promise<number> {
  const port = await findFreePort();
  const started = performance.now();
  const server = await spawnChild({
    args: [AAR_BIN, 'serve', '--port', String(port)],
    cwd: ROOT,
    env: { ...env, AAR_DATA_DIR: dataDir, AAR_LOG_LEVEL: 'warn' },
    port,
    readyPath: '/healthz',
    readyTimeoutMs: 60_000,
  });
  const elapsed = performance.now() - started;
  await server.stop();
  return elapsed;
}

export async function runCliStartup(options: CliStartupOptions): Promise<BenchReport> {
  const measurements: Measurement[] = [];
  const floor: number[] = [];
  for (let i = 0; i < options.versionRuns; i++) floor.push(await timeExit(['-e', '0'], {}));
  measurements.push({ ...toMeasurement('node -e 0 (floor)', 'bare node start', floor), baseline: true });
  for (const mode of MODES) {
    const samples: number[] = [];
    for (let i = 0; i < options.versionRuns; i++) samples.push(await timeExit([AAR_BIN, '--version'], mode.env));
    measurements.push({ ...toMeasurement('aar --version', mode.name, samples), baseline: mode.baseline });
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-bench-cli-'));
  try {
    await timeServeUntilHealthy(dataDir, MODES[1].env); // creates the store and keys; not measured
    for (const mode of MODES) {
      const samples: number[] = [];
      for (let i = 0; i < options.serveRuns; i++) samples.push(await timeServeUntilHealthy(dataDir, mode.env));
      measurements.push({ ...toMeasurement('aar serve until /healthz', mode.name, samples), baseline: mode.baseline });
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return {
    name: 'cli-startup',
    description: 'aar --version and aar serve until healthy: compiled build against the sources through tsx',
    measurements,
    notes: [
      'wall time from spawn to exit (--version) or to the first 200 of /healthz (serve), polled every 100 ms',
      'serve restarts on an existing SQLite data dir (migrations already applied, keys on disk)',
    ],
  };
}

export const cliStartup: Benchmark = {
  name: 'cli-startup',
  description: 'aar --version and aar serve until healthy, compiled against sources (issue 11)',
  run: () => runCliStartup({ versionRuns: 8, serveRuns: 4 }),
};
