/**
 * A whole service (store, keys, write queue, app) on a temporary data dir, in this process: the audit benchmarks
 * drive the write queue and the verifier directly, so the numbers are the chain's, not HTTP's. SQLite by default
 * (the embedded default: WAL, the log fdatasynced by the store before a unit resolves), PostgreSQL when a URL is given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../packages/server/src/app-context.ts';
import { buildApp } from '../../packages/server/src/app.ts';
import { loadConfig } from '../../packages/server/src/config.ts';
import { ensureBootstrapToken } from '../../packages/server/src/http/authenticate.ts';
import { openRuntime } from '../../packages/server/src/runtime.ts';

export const BENCH_TOKEN = 'bench-audit-admin-token';

export interface BenchRuntime {
  ctx: AppContext;
  app: FastifyInstance;
  dataDir: string;
  close(): Promise<void>;
}

export async function openBenchRuntime(): Promise<BenchRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aar-bench-audit-'));
  const ctx = await openRuntime(loadConfig({ AAR_DATA_DIR: dataDir, AAR_BOOTSTRAP_TOKEN: BENCH_TOKEN }));
  const app = await buildApp(ctx);
  await ensureBootstrapToken(ctx);
  return {
    ctx,
    app,
    dataDir,
    async close() {
      await app.close();
      await ctx.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
