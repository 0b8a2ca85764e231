import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { guardPostgresTable, guardSqliteTable, type GuardedTable } from './write-once-guards.ts';

/**
 * The AuthZEN door's generic-domain decisions (CONTRACT section 20, issue 28): one row per signed
 * `ns.access_decision.v1`, write-once like the other signed records (the database refuses UPDATE, DELETE and REPLACE).
 * `document` is the signed decision's RFC 8785 text; `audit_id` names the audit entry committing to its digest, which
 * GET /v1/audit/verify checks (audit/record-checks/check-access-decisions.ts). `decided_at` restates the document.
 */
export const ACCESS_DECISIONS_GUARD: GuardedTable = {
  table: 'access_decisions',
  uniqueKeys: [['seq'], ['access_decision_id'], ['audit_id']],
  stateColumns: [],
};

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('access_decisions'), dialect)
    .addColumn('access_decision_id', 'text', (c) => c.notNull().unique())
    .addColumn('audit_id', 'text', (c) => c.notNull().unique())
    .addColumn('decided_at', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .execute();
  if (dialect === 'postgres') await guardPostgresTable(db, ACCESS_DECISIONS_GUARD);
  else await guardSqliteTable(db, ACCESS_DECISIONS_GUARD, true);
}
