import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { CONFORMANCE_RUNS_GUARD, guardPostgresTable, guardSqliteTable } from './write-once-guards.ts';

/**
 * Conformance runs (CONTRACT section 14): one row per signed `ns.conformance_report.v1` the service produced by
 * running the kit against itself. Write-once like the audit records (certification signs over these reports, so a
 * stored report must never change under a signature): the database refuses UPDATE, DELETE and REPLACE.
 * `document` is the signed report's RFC 8785 text, exactly what GET /v1/conformance/runs/{id} returns.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('conformance_runs'), dialect)
    .addColumn('report_id', 'text', (c) => c.notNull().unique())
    // 1 when no fixture failed
    .addColumn('passed', 'integer', (c) => c.notNull())
    .addColumn('fixtures', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  if (dialect === 'postgres') await guardPostgresTable(db, CONFORMANCE_RUNS_GUARD);
  else await guardSqliteTable(db, CONFORMANCE_RUNS_GUARD, true);
}
