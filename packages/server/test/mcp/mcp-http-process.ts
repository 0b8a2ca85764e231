/**
 * `aar mcp --http 0` (or `aar mcp guard --guard-http 0`) as a real process: `argv` carries the port flag; waits for
 * its "listening on <url>" line and gives the URL of its /mcp endpoint.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface McpHttpProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

export async function spawnMcpHttp(argv: string[], env: Record<string, string>): Promise<McpHttpProcess> {
  const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`aar mcp --http did not start in 30 s: ${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`aar mcp --http exited with ${code}: ${out}`));
    });
  });
  return {
    child,
    url,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
