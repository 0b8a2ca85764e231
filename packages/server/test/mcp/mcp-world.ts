/**
 * One running `aar serve` with a purchase world (alice, agent shopper-1 with its key, card token tok-1, merchants,
 * a grant: 50 EUR per purchase, 100 EUR a day, approval above 40 EUR, casinos blocked), the agent's key written to
 * a file of mode 0600, and the flags that point `aar mcp` at all of it. Shared by the MCP tests of this directory.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { AAR_BIN, spawnServer, type ServerProcess } from '../support/spawn-server.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';

export type PurchaseWorld = Awaited<ReturnType<typeof buildPurchaseWorld>>;

export interface McpWorld {
  server: ServerProcess;
  world: PurchaseWorld;
  dir: string;
  keyFile: string;
  /** `aar mcp` and its flags, without the transport */
  argv: string[];
  env: Record<string, string>;
  close(): Promise<void>;
}

/** `serverEnv`: more environment for `aar serve` (AAR_MCP_AUTHORIZATION_SERVERS, say) */
export async function startMcpWorld(serverEnv: Record<string, string> = {}): Promise<McpWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'aar-mcp-'));
  const server = await spawnServer({ AAR_DATA_DIR: join(dir, 'data'), AAR_BOOTSTRAP_TOKEN: ADMIN_TOKEN, ...serverEnv });
  const world = await buildPurchaseWorld(server.base, ADMIN_TOKEN);
  const keyFile = join(dir, 'agent-key.jwk');
  writeFileSync(keyFile, JSON.stringify(world.privateJwk), { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  const argv = [
    AAR_BIN,
    'mcp',
    '--base-url',
    server.base,
    '--agent',
    'shopper-1',
    '--agent-key',
    keyFile,
    '--principal',
    'alice',
    '--instrument',
    'tok-1',
    '--approval-poll-ms',
    '100',
  ];
  const env = { ...(process.env as Record<string, string>), AAR_MCP_TOKEN: world.runtimeToken, AAR_FROM_SOURCE: '1' };
  return {
    server,
    world,
    dir,
    keyFile,
    argv,
    env,
    close: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
