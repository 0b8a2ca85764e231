/**
 * A server under load in its own process, so the load generator never shares its event loop. `stop()` is safe to
 * call twice and after the child died; the runner calls it in a `finally`, so a failed run leaves no process behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface ChildServer {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  pid: number;
  /** what the child wrote to stdout and stderr so far (for error messages) */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnChildOptions {
  /** arguments after `node` */
  args: string[];
  /** where `--import tsx` is resolved from: the repository root */
  cwd: string;
  env: Record<string, string>;
  port: number;
  /** path answered with a 2xx once the server is ready, e.g. `/healthz` */
  readyPath: string;
  readyTimeoutMs?: number;
}

/** A port the kernel just gave out on loopback; another process could take it before the child binds it. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export async function spawnChild(options: SpawnChildOptions): Promise<ChildServer> {
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${options.port}`;
  const server: ChildServer = {
    base,
    port: options.port,
    pid: child.pid ?? -1,
    output: () => out,
    stop: (graceMs = 5000) => stopChild(child, exited, graceMs),
  };
  try {
    await waitUntilReady(child, `${base}${options.readyPath}`, options.readyTimeoutMs ?? 30_000, () => out);
  } catch (error) {
    await server.stop(1000);
    throw error;
  }
  return server;
}

async function waitUntilReady(child: ChildProcess, url: string, timeoutMs: number, out: () => string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`child exited (${child.exitCode ?? child.signalCode}) before it was ready: ${out()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    if (performance.now() > deadline) throw new Error(`child not ready at ${url} after ${timeoutMs} ms: ${out()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, graceMs);
  });
  await Promise.race([exited, killed]);
  clearTimeout(timer);
  await exited;
}
