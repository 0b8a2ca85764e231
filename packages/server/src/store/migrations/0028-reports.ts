import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { guardPostgresTable, guardSqliteTable, type GuardedTable } from './write-once-guards.ts';

/**
 * Compliance reports and their schedules (CONTRACT section 22, issue 30; services/reports, docs/reports.md).
 * - `report_schedules`: one row per schedule. Only the period cursor (`next_start`, `next_end`: the next period to
 *   report on) and `deleted_at` change; the cursor only moves forward, one period at a time (`next_start` becomes
 *   the old `next_end`), in the same transaction as the report of the period it leaves; `deleted_at` is set once.
 *   Rows are never deleted: a deleted schedule still names the reports it made.
 * - `compliance_reports`: one row per signed `ns.compliance_report.v1`, write-once; `document` is its RFC 8785 text,
 *   served byte for byte, `digest` the `sha-256:` of those bytes (what `ns.report.generated` commits to). A period is
 *   reported once per schedule: (`schedule_id`, `period_start`) is unique (on-demand reports have no schedule, and
 *   NULLs never collide), the database's last word when two instances race for the same period.
 * Attacker assumption for the guards: SQL write access without the service key (write-once-guards.ts); edits that
 * drop the guards are found by comparing a report's bytes with the digest its signed event carries.
 */
export const REPORT_SCHEDULES_GUARD: GuardedTable = {
  table: 'report_schedules',
  uniqueKeys: [['seq'], ['schedule_id']],
  stateColumns: ['next_start', 'next_end', 'deleted_at'],
  sqliteTransition:
    '((new.deleted_at is old.deleted_at or old.deleted_at is null)' +
    ' and (new.next_start is old.next_start or new.next_start = old.next_end))',
};

export const COMPLIANCE_REPORTS_GUARD: GuardedTable = {
  table: 'compliance_reports',
  uniqueKeys: [['seq'], ['report_id'], ['schedule_id', 'period_start']],
  stateColumns: [],
};

export const REPORT_GUARDS: readonly GuardedTable[] = [REPORT_SCHEDULES_GUARD, COMPLIANCE_REPORTS_GUARD];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('report_schedules'), dialect)
    .addColumn('schedule_id', 'text', (c) => c.notNull().unique())
    .addColumn('every', 'text', (c) => c.notNull())
    // interval schedules: the instant periods run from; calendar ones: null
    .addColumn('anchor', 'text')
    // JSON array of framework names, in the order reports list their coverage
    .addColumn('frameworks', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('next_start', 'text', (c) => c.notNull())
    .addColumn('next_end', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  // the worker's question: which live schedules have a period that has ended
  await db.schema
    .createIndex('report_schedules_due')
    .on('report_schedules')
    .columns(['deleted_at', 'next_end'])
    .execute();

  await withSeq(db.schema.createTable('compliance_reports'), dialect)
    .addColumn('report_id', 'text', (c) => c.notNull().unique())
    .addColumn('schedule_id', 'text')
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('period_end', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('generated_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addUniqueConstraint('compliance_reports_period', ['schedule_id', 'period_start'])
    .addCheckConstraint('compliance_reports_period_order', sql`period_start < period_end`)
    .execute();

  if (dialect === 'postgres') {
    for (const guard of REPORT_GUARDS) await guardPostgresTable(db, guard);
  } else {
    for (const guard of REPORT_GUARDS) await guardSqliteTable(db, guard, true);
  }
}
