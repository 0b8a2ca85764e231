/**
 * Several `aar serve` processes sharing one fresh PostgreSQL schema, each with its own data dir (so its own signing
 * key, published to the shared `signing_keys` table), as a horizontally scaled deployment runs them.
 * INVARIANT: whatever happens (a process that fails to start, a failing test), stop() leaves no process running,
 * no schema and no data dir behind; a process that ignores SIGTERM for 10 s is killed, and if the test worker exits
 * without calling stop(), its processes are killed with it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPgSchema } from './pg-schema.ts';
import { spawnServer, type ServerProcess } from './spawn-server.ts';

export interface PgCluster {
  servers: ServerProcess[];
  /** the shared schema's URL (search_path pinned), for reading the store directly */
  databaseUrl: string;
  /** what the processes printed, for failure messages */
  output(): string;
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 10_000;
/** The origin a load balancer in front of the cluster would publish: agents may sign for it, whichever instance answers. */
export const CLUSTER_PUBLIC_URL = 'http://aar.test';

export async function startPgCluster(count: number, bootstrapToken: string): Promise<PgCluster> {
  const schema = await freshPgSchema();
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  // last resort: a worker that exits (a crash, a hook timeout) takes its servers with it
  const killAll = () => servers.forEach((s) => s.child.kill('SIGKILL'));
  process.once('exit', killAll);
  const stop = async (): Promise<void> => {
    process.off('exit', killAll);
    await Promise.all(servers.map(stopFirmly));
    await schema.drop().catch(() => undefined);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    // one after the other: concurrent first starts are not what these tests are about
    for (let i = 0; i < count; i++) {
      const dir = mkdtempSync(join(tmpdir(), `aar-cluster-${i}-`));
      dirs.push(dir);
      servers.push(
        // every instance answers under its own address and under the shared public origin of the cluster
        await spawnServer((base) => ({
          DATABASE_URL: schema.url,
          AAR_DATA_DIR: dir,
          AAR_BOOTSTRAP_TOKEN: bootstrapToken,
          AAR_PUBLIC_URL: `${base},${CLUSTER_PUBLIC_URL}`,
        })),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    servers,
    databaseUrl: schema.url,
    output: () => servers.map((s, i) => `--- instance ${i}\n${s.output()}`).join('\n'),
    stop,
  };
}

async function stopFirmly(server: ServerProcess): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      server.child.kill('SIGKILL');
      resolve();
    }, STOP_GRACE_MS);
  });
  await Promise.race([server.stop().then(() => undefined), killed]);
  clearTimeout(timer);
  if (server.child.exitCode === null && server.child.signalCode === null) {
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
}
