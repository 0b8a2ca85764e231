import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { guardPostgresTable, guardSqliteTable, type GuardedTable } from './write-once-guards.ts';

/**
 * Signed search results (CONTRACT section 22, issue 30; services/search, docs/search.md).
 * - `search_results`: one row per `POST /v1/search`, the signed `ns.search_result.v1` as its RFC 8785 text
 *   (`document`, served byte for byte by `GET /v1/search/{id}`), `digest` the `sha-256:` of those bytes. Fully
 *   write-once: what an agent was shown never changes afterwards. The columns beside the document say who may read it
 *   again (the token that searched, the principal of a principal credential) without parsing it.
 * Attacker assumption for the guards: SQL write access without the service key (write-once-guards.ts); an edited
 * document no longer verifies against the JWKS, and its digest no longer matches.
 */
export const SEARCH_RESULTS_GUARD: GuardedTable = {
  table: 'search_results',
  uniqueKeys: [['seq'], ['search_result_id']],
  stateColumns: [],
};

export const SEARCH_GUARDS: readonly GuardedTable[] = [SEARCH_RESULTS_GUARD];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('search_results'), dialect)
    .addColumn('search_result_id', 'text', (c) => c.notNull().unique())
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    // the principal of a principal credential (who may read the result again); null for the other roles
    .addColumn('principal_entity_id', 'text')
    .addColumn('agent_entity_id', 'text')
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('search_results_token').on('search_results').columns(['token_id', 'seq']).execute();

  if (dialect === 'postgres') {
    for (const guard of SEARCH_GUARDS) await guardPostgresTable(db, guard);
  } else {
    for (const guard of SEARCH_GUARDS) await guardSqliteTable(db, guard, true);
  }
}
