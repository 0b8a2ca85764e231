/**
 * One `aar serve` child on the embedded SQLite default, in a fresh data directory that is removed when it stops, with
 * signed requests required and an admin bootstrap token: the server the loopback HTTP benchmarks measure.
 * AAR_BENCH_SERVE_NODE_ARGS (space-separated, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort, spawnChild, type ChildServer } from '../authorize-http/spawn-child.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AAR_BIN = fileURLToPath(new URL('../../packages/server/bin/aar.js', import.meta.url));

export type BenchServer = ChildServer & { adminToken: string };

export async function startBenchServer(name: string, env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `aar-bench-${name}-`));
  const adminToken = `bench-${randomBytes(18).toString('base64url')}`;
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  let child: ChildServer;
  try {
    child = await spawnChild({
      args: [
        ...(process.env.AAR_BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
        AAR_BIN,
        'serve',
        '--port',
        String(port),
      ],
      cwd: REPO_ROOT,
      env: {
        DATABASE_URL: '',
        AAR_HOST: '127.0.0.1',
        AAR_REQUIRE_SIGNED_REQUESTS: 'true',
        AAR_DATA_DIR: dataDir,
        AAR_BOOTSTRAP_TOKEN: adminToken,
        AAR_LOG_LEVEL: 'warn',
        AAR_RATE_LIMIT: '10000000',
        AAR_ISSUER_URL: base,
        AAR_PUBLIC_URL: base,
        ...env,
      },
      port,
      readyPath: '/healthz',
      readyTimeoutMs: 120_000,
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...child,
    adminToken,
    async stop(graceMs?: number) {
      try {
        await child.stop(graceMs);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** POST as the admin; the parsed answer, or an error naming the route and the answer. */
export async function adminPost(
  server: { base: string; adminToken: string },
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}
