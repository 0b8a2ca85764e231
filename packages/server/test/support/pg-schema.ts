import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PG_URL } from './dialects.ts';

/** A fresh PostgreSQL schema per test file: the returned URL pins search_path to it; drop() removes it. */
export async function freshPgSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `aar_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}
