/**
 * Runs `edit` as an attacker with the database but not the service's key would: with the write-once guards and every
 * other trigger out of the way (SQLite: dropped, then recreated; PostgreSQL: `session_replication_role = replica` in
 * the editing transaction). Triggers that move the facts version (migration 0009) are bypassed too, as they would be.
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
