/**
 * The grant version (migration 0005): one counter every change of a grant bumps inside the changing transaction.
 * Triggers on `grants` bump it for inserts and updates; a revocation cascade writes `grant_revocations` only, so it
 * bumps it itself, once. On PostgreSQL the bump also NOTIFYs `aar_grants_<schema>`; the notification is delivered
 * at commit, never before, and only as a hint: readers compare the version itself (grant-cache.ts).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from '../../store/dialect.ts';
import type { Database } from '../../store/index.ts';
import { prepareQuery } from '../../store/prepared-query.ts';

export function grantsChannel(schema: string): string {
  return `aar_grants_${schema}`;
}

export async function bumpGrantVersion(trx: Transaction<Database>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ version: number }>`
      update grant_version set version = version + 1 where id = 1 returning version`.execute(trx);
    await sql`select pg_notify('aar_grants_' || current_schema(), ${String(rows[0]?.version ?? 0)})`.execute(trx);
    return;
  }
  await trx
    .updateTable('grant_version')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('id', '=', 1)
    .execute();
}

/** read by every authorize (grant-cache.ts) */
const GRANT_VERSION = prepareQuery([], (db) => db.selectFrom('grant_version').select('version').where('id', '=', 1));

export async function readGrantVersion(db: Kysely<Database>): Promise<number> {
  const [row] = (await GRANT_VERSION.execute(db, {})).rows;
  return Number(row?.version ?? 0);
}
