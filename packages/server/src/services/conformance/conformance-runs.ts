/**
 * The stored conformance reports (CONTRACT section 14), for routes and for the capabilities that read them:
 * certification signs over a report (getConformanceRun), self-audit reports when the kit last ran
 * (latestConformanceRun). Reports are stored signed and returned byte for byte as signed.
 */
import { AarError, canonicalJson, fieldError, UUID_PATTERN, type ConformanceReport } from '@aar/core';
import type { AppContext } from '../../app-context.ts';

export const CONFORMANCE_REPORT_PREFIX = 'ns:conformance_report:';

export interface ConformanceRunSummary {
  report_id: string;
  passed: boolean;
  fixtures: number;
  failed: number;
  created_at: string;
}

/** Throws `invalid_id` naming `path` unless `value` is `ns:conformance_report:<uuid>`. */
export function parseConformanceReportId(value: unknown, path: string): string {
  if (
    typeof value !== 'string' ||
    !value.startsWith(CONFORMANCE_REPORT_PREFIX) ||
    !UUID_PATTERN.test(value.slice(CONFORMANCE_REPORT_PREFIX.length))
  ) {
    throw fieldError('invalid_id', path, `must be an id of the form \`${CONFORMANCE_REPORT_PREFIX}<uuid>\``);
  }
  return value;
}

/** Stores a signed report once; its RFC 8785 text is what readers get back. */
export async function storeConformanceReport(
  ctx: AppContext,
  report: ConformanceReport,
  createdBy: string | null,
  origin: 'self' | 'publisher' = 'self',
): Promise<void> {
  await ctx.writer.run(async (trx) => {
    await trx
      .insertInto('conformance_runs')
      .values({
        report_id: report.report_id,
        passed: report.passed ? 1 : 0,
        fixtures: report.summary.fixtures,
        failed: report.summary.failed,
        document: canonicalJson(report),
        origin,
        created_by: createdBy,
        created_at: report.finished_at,
      })
      .execute();
  });
}

/** The signed report `id`; 404 `not_found` when there is none, 400 `invalid_id` when `id` is malformed. */
export async function getConformanceRun(ctx: AppContext, id: string): Promise<ConformanceReport> {
  const reportId = parseConformanceReportId(id, '/params/id');
  const row = await ctx.store.db
    .selectFrom('conformance_runs')
    .select('document')
    .where('report_id', '=', reportId)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `conformance report \`${reportId}\` does not exist`);
  return JSON.parse(row.document) as ConformanceReport;
}

/** A stored report with who signed it (`self` or `publisher`), or undefined. */
export async function storedConformanceReport(
  ctx: AppContext,
  reportId: string,
): Promise<{ report: ConformanceReport; origin: 'self' | 'publisher' } | undefined> {
  const row = await ctx.store.db
    .selectFrom('conformance_runs')
    .select(['document', 'origin'])
    .where('report_id', '=', reportId)
    .executeTakeFirst();
  return row && { report: JSON.parse(row.document) as ConformanceReport, origin: row.origin };
}

/** The most recent self-run (by completion), or undefined when the kit never ran here. */
export async function latestConformanceRun(ctx: AppContext): Promise<ConformanceRunSummary | undefined> {
  const row = await ctx.store.db
    .selectFrom('conformance_runs')
    .select(['report_id', 'passed', 'fixtures', 'failed', 'created_at'])
    .where('origin', '=', 'self')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && { ...row, passed: row.passed === 1 };
}
