/**
 * The two servers of the benchmark, each in its own child process on loopback: the service (`aar serve`, embedded
 * default: SQLite in a fresh temp data dir, WAL, synchronous NORMAL plus the store's own fdatasync of the log before
 * every answer) and the bare Fastify echo that is its ceiling.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ECHO_READY_PATH } from './echo-server.ts';
import { findFreePort, spawnChild, type ChildServer } from './spawn-child.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AAR_BIN = fileURLToPath(new URL('../../packages/server/bin/aar.js', import.meta.url));
const ECHO_SCRIPT = fileURLToPath(new URL('./echo-server.ts', import.meta.url));

/** far above anything two cores can answer in a minute: the benchmark measures the work, not the limiter */
const RATE_LIMIT_PER_MINUTE = 10_000_000;

export interface AarServer extends ChildServer {
  /** the admin token the service was bootstrapped with */
  adminToken: string;
  /** the temp data dir; `aar.sqlite` in it is the store (removed by `stop`) */
  dataDir: string;
}

export interface AarServerOptions {
  /** a PostgreSQL URL (search_path pinned to a fresh schema) instead of the embedded SQLite */
  databaseUrl?: string;
  /**
   * Another instance on the same store: its admin token, and its base URL as this one's public URL (AAR_PUBLIC_URL)
   * and issuer, so requests signed for the first instance's `@target-uri` verify here too.
   */
  sameAs?: AarServer;
}

export async function startAarServer(options: AarServerOptions = {}): Promise<AarServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-bench-'));
  const adminToken = options.sameAs?.adminToken ?? `bench-${randomBytes(18).toString('base64url')}`;
  const port = await findFreePort();
  const publicUrl = options.sameAs?.base ?? `http://127.0.0.1:${port}`;
  let child: ChildServer;
  try {
    child = await spawnChild({
      // AAR_BENCH_SERVE_NODE_ARGS (space-separated, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the service
      args: [...serveNodeArgs(), AAR_BIN, 'serve', '--port', String(port)],
      cwd: REPO_ROOT,
      env: {
        // an inherited DATABASE_URL (the storage tests set one) would move the store to PostgreSQL
        DATABASE_URL: options.databaseUrl ?? '',
        AAR_HOST: '127.0.0.1',
        AAR_REQUIRE_SIGNED_REQUESTS: 'true',
        AAR_DATA_DIR: dataDir,
        AAR_BOOTSTRAP_TOKEN: adminToken,
        AAR_LOG_LEVEL: 'warn',
        AAR_RATE_LIMIT: String(RATE_LIMIT_PER_MINUTE),
        AAR_ISSUER_URL: publicUrl,
        AAR_PUBLIC_URL: publicUrl,
      },
      port,
      readyPath: '/healthz',
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...child,
    adminToken,
    dataDir,
    async stop(graceMs?: number) {
      try {
        await child.stop(graceMs);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

function serveNodeArgs(): string[] {
  return (process.env.AAR_BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
}

export async function startEchoServer(): Promise<ChildServer> {
  const port = await findFreePort();
  return spawnChild({
    args: ['--import', 'tsx', ECHO_SCRIPT],
    cwd: REPO_ROOT,
    env: { ECHO_PORT: String(port) },
    port,
    readyPath: ECHO_READY_PATH,
  });
}
