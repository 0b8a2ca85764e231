/**
 * The stores authorize is measured on, each a fresh one: the embedded default (SQLite file, WAL, the log fdatasynced by the store before every answer),
 * and PostgreSQL (a fresh schema at AAR_TEST_PG_URL, default the CI server) behind one `aar serve` or two. Two
 * instances share one store and one audit chain; each is sent half of the connections, and the second takes the
 * first's URL as its public URL, so every pre-signed request verifies on either. The `-agents` kinds build a world
 * of AGENTS cardholders, each with its own grant, instead of one agent whose every request spends against one
 * grant's row (which PostgreSQL locks until each batch commits: the instances then take turns on that row).
 */
import { freshPgSchema } from '../../packages/server/test/support/pg-schema.ts';
import type { DecisionStore } from './count-decisions.ts';
import { startAarServer, type AarServer } from './start-servers.ts';

export type ScenarioKind = 'sqlite' | 'postgres-1' | 'postgres-2' | 'postgres-1-agents' | 'postgres-2-agents';

/** cardholders (agent and grant each) in the world of the `-agents` kinds; AAR_BENCH_AUTHORIZE_AGENTS overrides */
export const AGENTS = Number(process.env.AAR_BENCH_AUTHORIZE_AGENTS ?? 32);

export interface Scenario {
  kind: ScenarioKind;
  /** agents (each with its own grant) in the world built for this scenario */
  agents: number;
  /** prefix of the group names ('' for SQLite, whose group names are those of earlier runs) */
  prefix: string;
  /** short name in the notes */
  short: string;
  servers: AarServer[];
  store: DecisionStore;
  stop(): Promise<void>;
}

export const SCENARIO_NAMES: Record<ScenarioKind, { prefix: string; short: string }> = {
  sqlite: { prefix: '', short: 'SQLite' },
  'postgres-1': { prefix: 'PostgreSQL, 1 instance: ', short: 'PG×1' },
  'postgres-2': { prefix: 'PostgreSQL, 2 instances: ', short: 'PG×2' },
  'postgres-1-agents': { prefix: `PostgreSQL, 1 instance, ${AGENTS} agents: `, short: `PG×1 ${AGENTS} agents` },
  'postgres-2-agents': { prefix: `PostgreSQL, 2 instances, ${AGENTS} agents: `, short: `PG×2 ${AGENTS} agents` },
};

export async function startScenario(kind: ScenarioKind): Promise<Scenario> {
  const names = SCENARIO_NAMES[kind];
  if (kind === 'sqlite') {
    const aar = await startAarServer();
    return { kind, agents: 1, ...names, servers: [aar], store: aar.dataDir, stop: () => aar.stop() };
  }
  const schema = await freshPgSchema();
  const servers: AarServer[] = [];
  const stop = async () => {
    await Promise.allSettled(servers.map((s) => s.stop()));
    await schema.drop();
  };
  try {
    // one after the other: the first migrates the schema and bootstraps the admin token
    servers.push(await startAarServer({ databaseUrl: schema.url }));
    if (kind.startsWith('postgres-2'))
      servers.push(await startAarServer({ databaseUrl: schema.url, sameAs: servers[0] }));
  } catch (error) {
    await stop();
    throw error;
  }
  const agents = kind.endsWith('-agents') ? AGENTS : 1;
  return { kind, agents, ...names, servers, store: { postgresUrl: schema.url }, stop };
}

/** Whether PostgreSQL can be reached (a schema created and dropped); the PostgreSQL groups are skipped otherwise. */
export async function postgresReachable(): Promise<boolean> {
  try {
    const schema = await freshPgSchema();
    await schema.drop();
    return true;
  } catch {
    return false;
  }
}
