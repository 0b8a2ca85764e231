/**
 * Which databases the storage suites run against. SQLite always; PostgreSQL at AAR_TEST_PG_URL (default the CI
 * server, postgres://postgres@127.0.0.1:5432/test). Outside CI an unreachable PostgreSQL is skipped with a printed
 * notice, never silently; in CI (CI=true) it is a failure.
 */
import pg from 'pg';
import type { Dialect } from '../../src/store/index.ts';

export const PG_URL = process.env.AAR_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function testDialects(): Promise<Dialect[]> {
  const wanted = (process.env.AAR_TEST_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()) as Dialect[];
  const out: Dialect[] = [];
  for (const d of wanted) {
    if (d === 'sqlite') out.push(d);
    else if (d === 'postgres') {
      if (await postgresReachable()) out.push(d);
      else if (process.env.CI === 'true')
        throw new Error(`PostgreSQL is not reachable at ${PG_URL}, and CI requires it`);
      else
        console.warn(
          `\n[storage] NOTICE: PostgreSQL is not reachable at ${PG_URL}: the PostgreSQL storage suite is SKIPPED\n`,
        );
    } else throw new Error(`unknown dialect in AAR_TEST_DIALECTS: ${d}`);
  }
  return out;
}
