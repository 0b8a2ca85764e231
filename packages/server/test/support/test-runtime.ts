import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/app-context.ts';
import { buildApp } from '../../src/app.ts';
import type { Clock } from '../../src/clock.ts';
import { sharedVectorPath } from '../../../../vectors/lib/shared-vectors.ts';
import { loadConfig, type AppConfig, type OptInCapability } from '../../src/config.ts';
import { ensureBootstrapToken } from '../../src/http/authenticate.ts';
import { openRuntime } from '../../src/runtime.ts';
import type { Dialect } from '../../src/store/index.ts';
import { copyMigratedTemplate } from './migrated-sqlite-template.ts';
import { freshPgSchema } from './pg-schema.ts';
import { sharedSerializers } from './shared-serializers.ts';
import { sharedValidators } from './shared-validators.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestRuntime {
  ctx: AppContext;
  app: FastifyInstance;
  dataDir: string;
  close(): Promise<void>;
}

/** AP2's JSON Schemas in ../shared (never copied here); absent, test services type-check mandate contents only. */
const AP2_SCHEMA_DIR = sharedVectorPath('ap2', 'schemas', 'ap2');

export interface TestRuntimeOptions {
  dialect?: Dialect;
  clock?: Clock;
  config?: Partial<AppConfig>;
  /** reuse a data dir (restart tests); a fresh temp dir otherwise */
  dataDir?: string;
  /** the opt-in capabilities to enable (AAR_OPT_IN; CONTRACT section 22); none by default, as in a deployment */
  optIn?: readonly OptInCapability[];
}

/** A whole service (store, keys, app) on a temp data dir, SQLite or a fresh PostgreSQL schema, with an admin token. */
export async function startTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'aar-test-'));
  const pgSchema = options.dialect === 'postgres' ? await freshPgSchema() : undefined;
  const config = loadConfig(
    { AAR_DATA_DIR: dataDir, AAR_BOOTSTRAP_TOKEN: ADMIN_TOKEN, AAR_ISSUER_URL: 'http://127.0.0.1:8080' },
    {
      ...(pgSchema ? { databaseUrl: pgSchema.url } : {}),
      // every AP2 mandate content a test service accepts is valid against AP2's own schemas, where they are present
      ...(AP2_SCHEMA_DIR ? { ap2SchemaDir: AP2_SCHEMA_DIR } : {}),
      ...options.config,
      ...(options.optIn ? { optIn: new Set(options.optIn) } : {}),
    },
  );
  let ctx: AppContext;
  let app: FastifyInstance;
  // a new SQLite store starts as a copy of the migrated template (migrated-sqlite-template.ts), not migrated again
  if (!config.databaseUrl && !options.dataDir) await copyMigratedTemplate(join(config.dataDir, 'aar.sqlite'));
  try {
    ctx = await openRuntime(config, options.clock ? { clock: options.clock } : {});
  } catch (error) {
    await pgSchema?.drop();
    throw error;
  }
  try {
    app = await buildApp(ctx, { buildSerializer: sharedSerializers, buildValidator: sharedValidators });
    await ensureBootstrapToken(ctx);
    if (options.config?.publicUrls === undefined) servePublicUrlAtListenAddress(app, ctx);
  } catch (error) {
    await ctx.store.close();
    await pgSchema?.drop();
    throw error;
  }
  return {
    ctx,
    app,
    dataDir,
    async close() {
      await app.close();
      await ctx.store.close();
      await pgSchema?.drop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A test listens on port 0, so its public URL (AAR_PUBLIC_URL, the `@target-uri` agents sign for) is only known once
 * it listens: like an operator who sets AAR_PUBLIC_URL to the address clients use, take the first listen address.
 * Tests that pass `config.publicUrls` keep theirs.
 */
function servePublicUrlAtListenAddress(app: FastifyInstance, ctx: AppContext): void {
  // the app is already `ready` (no more hooks); the socket's own event fires before listen() resolves
  app.server.once('listening', () => {
    const address = app.server.address();
    if (address && typeof address === 'object') {
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      ctx.config.publicUrls = [`http://${host}:${address.port}`];
    }
  });
}

export function auth(token = ADMIN_TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
