import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const AAR_BIN = fileURLToPath(new URL('../../bin/aar.js', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `aar serve` as a real process and waits until /healthz answers (bounded: 30 s). `env` may be a function of
 * the address the process will listen on (to put it in AAR_PUBLIC_URL beside a shared public origin, say).
 */
export async function spawnServer(
  env: Record<string, string> | ((base: string) => Record<string, string>),
  args: string[] = [],
  // or `aar audit-serve` on the same configuration
  command: 'serve' | 'audit-serve' = 'serve',
): Promise<ServerProcess> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [AAR_BIN, command, '--port', String(port), ...args], {
    env: { ...process.env, AAR_LOG_LEVEL: 'warn', ...(typeof env === 'function' ? env(base) : env) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`aar serve exited with ${child.exitCode}: ${out}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`aar serve did not become healthy in 30 s: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    base,
    output: () => out,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        // a process killed by a signal has exitCode null and signalCode set: it is gone all the same
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}
