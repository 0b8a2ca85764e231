/**
 * The installed conformance kit and a spawned `aar serve` to run it against (sqlite in a temp dir, or a fresh
 * PostgreSQL schema). The approval TTL is the shortest allowed (10 s) so the approval_expired fixture runs instead
 * of being skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conformanceDirectory, schemaRegistryDirectory } from '../../src/services/conformance/kit-location.ts';
import { loadConformanceKit } from '../../src/services/conformance/load-kit.ts';
import { SchemaValidators } from '../../src/services/conformance/schema-validators.ts';
import { freshPgSchema } from './pg-schema.ts';
import { spawnServer, type ServerProcess } from './spawn-server.ts';

export const KIT_TOKEN = 'conformance-kit-admin-token-0123456789';

export function installedKitForTests() {
  const kit = loadConformanceKit(conformanceDirectory());
  return { kit, schemas: new SchemaValidators([schemaRegistryDirectory(), `${kit.directory}/schemas`]) };
}

export interface KitServer {
  server: ServerProcess;
  /** the SQLite data dir, or the PostgreSQL URL of the server's schema */
  dataDir: string;
  databaseUrl: string | undefined;
  close(): Promise<void>;
}

export async function spawnKitServer(
  dialect: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
): Promise<KitServer> {
  const dir = mkdtempSync(join(tmpdir(), 'aar-kit-'));
  const schema = dialect === 'postgres' ? await freshPgSchema() : undefined;
  const server = await spawnServer({
    AAR_DATA_DIR: dir,
    AAR_BOOTSTRAP_TOKEN: KIT_TOKEN,
    AAR_APPROVAL_TTL: '10',
    ...(schema ? { DATABASE_URL: schema.url } : {}),
    ...env,
  });
  return {
    server,
    dataDir: dir,
    databaseUrl: schema?.url,
    close: async () => {
      await server.stop();
      await schema?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
