/**
 * Runs `edit` with the database's write-once guards out of the way, as an attacker with SQL access (but not the
 * service key) would: SQLite, drop every trigger and recreate it after; PostgreSQL, `session_replication_role =
 * replica` for the edit's own transaction (triggers do not fire). What `GET /v1/audit/verify` must then find.
 */
import { sql, type Kysely } from 'kysely';
import type { Database, Dialect } from '../../src/store/index.ts';

export async function bypassingGuards(
  db: Kysely<Database>,
  dialect: Dialect,
  edit: (db: Kysely<Database>) => Promise<void>,
): Promise<void> {
  if (dialect === 'postgres') {
    await db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await edit(trx);
    });
    return;
  }
  const triggers = (
    await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'trigger'`.execute(db)
  ).rows;
  for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
  try {
    await edit(db);
  } finally {
    for (const t of triggers) await sql.raw(t.sql).execute(db);
  }
}
