import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/**
 * The grant version (migration 0005) now also counts every change of the other facts authorize reads outside its
 * transaction: entities (state, agent public key), card tokens, merchants and risk states. Each instance caches those
 * facts beside its grant chains (services/authorize/grant-cache.ts) and uses them only at the version it read first,
 * so a suspension, a new merchant or a risk signal committed anywhere (another instance, the CLI) is seen by the very
 * next authorize, exactly like a revocation. On PostgreSQL the bump also NOTIFYs `aar_grants_<schema>` (the 0005
 * function, one bump per statement).
 * INVARIANT: none of these tables is written by the decision's own transaction, so authorizing never moves the version.
 */
export const FACT_TABLES = ['entities', 'card_tokens', 'merchants', 'risk_states'] as const;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const table of FACT_TABLES) {
    if (dialect === 'postgres') {
      await sql`create trigger ${sql.raw(`${table}_bump_version`)} after insert or update or delete on ${sql.table(table)}
        for each statement execute function aar_bump_grant_version()`.execute(db);
      continue;
    }
    for (const op of ['insert', 'update', 'delete']) {
      await sql`create trigger ${sql.raw(`${table}_bump_version_${op}`)} after ${sql.raw(op)} on ${sql.table(table)}
        begin update grant_version set version = version + 1 where id = 1; end`.execute(db);
    }
  }
}
