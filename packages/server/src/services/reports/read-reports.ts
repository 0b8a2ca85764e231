/**
 * Reading stored reports (docs/reports.md): the signed text byte for byte, summaries newest first, and the OSCAL
 * view of one framework's coverage. Reports are per deployment (no principal): the routes admit admin and auditor
 * with `reports.read`.
 */
import {
  AarError,
  fieldError,
  parseReportId,
  parseReportScheduleId,
  reportToOscal,
  type ComplianceReport,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { encodeCursor, type Page, type PageRequest } from '../../routes/pagination.ts';
import { rulePackOf } from '../compliance/rule-pack-catalogue.ts';
import { downloadPath } from './generate-report.ts';

export interface ReportSummary {
  report_id: string;
  schedule_id: string | null;
  period: { start: string; end: string };
  generated_at: string;
  digest: string;
  download_path: string;
}

/** The stored report's exact text; 400 `invalid_id` for a malformed id, 404 when there is none. */
export async function getReportText(ctx: AppContext, rawId: string): Promise<string> {
  const id = parseReportId(rawId, '/params/id');
  const row = await ctx.store.db
    .selectFrom('compliance_reports')
    .select('document')
    .where('report_id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `report \`${id}\` does not exist`);
  return row.document;
}

/** Newest first; the cursor is the last seq seen, and the next page holds older reports. */
export async function listReports(
  ctx: AppContext,
  page: PageRequest,
  scheduleId: string | undefined,
): Promise<Page<ReportSummary>> {
  let query = ctx.store.db
    .selectFrom('compliance_reports')
    .select(['seq', 'report_id', 'schedule_id', 'period_start', 'period_end', 'generated_at', 'digest']);
  if (scheduleId !== undefined) {
    query = query.where('schedule_id', '=', parseReportScheduleId(scheduleId, '/query/schedule_id'));
  }
  if (page.afterSeq > 0) query = query.where('seq', '<', page.afterSeq);
  const rows = await query
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .execute();
  const more = rows.length > page.limit;
  const shown = more ? rows.slice(0, page.limit) : rows;
  return {
    items: shown.map((r) => ({
      report_id: r.report_id,
      schedule_id: r.schedule_id,
      period: { start: r.period_start, end: r.period_end },
      generated_at: r.generated_at,
      digest: r.digest,
      download_path: downloadPath(r.report_id),
    })),
    next_cursor: more ? encodeCursor(Number(shown[shown.length - 1]!.seq)) : null,
  };
}

/**
 * One framework's coverage as OSCAL `assessment-results`. `framework` may be left out when the report covers exactly
 * one; a report covering none has no OSCAL form (404).
 */
export async function getReportOscal(ctx: AppContext, rawId: string, framework: string | undefined) {
  const report = JSON.parse(await getReportText(ctx, rawId)) as ComplianceReport;
  const covered = report.coverage.map((c) => c.framework);
  if (covered.length === 0) {
    throw new AarError(
      'not_found',
      `report \`${report.report_id}\` covers no compliance framework: OSCAL applies where a framework projection ` +
        'does (schedule or request the report with `frameworks`)',
    );
  }
  const list = covered.map((f) => `\`${f}\``).join(', ');
  if (framework === undefined && covered.length > 1) {
    throw fieldError('invalid_request', '/query/framework', `name one of the frameworks the report covers: ${list}`);
  }
  const coverage = report.coverage.find((c) => c.framework === (framework ?? covered[0]));
  if (!coverage) {
    throw fieldError('invalid_request', '/query/framework', `the report does not cover it; it covers ${list}`);
  }
  const frameworkTitle = rulePackOf(coverage.framework, 'invalid_request', '/query/framework').title;
  return reportToOscal(report, coverage, { frameworkTitle, baseUrl: ctx.config.issuerUrl });
}
