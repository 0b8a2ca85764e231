/**
 * Making a report: count the period (count-period.ts), project its evidence packs (period-coverage.ts), assemble
 * (core assembleReport) and sign (CONTRACT section 4) OUTSIDE any write unit (projecting may assemble packs, a write
 * unit of its own); then store it with its `ns.report.generated` event and audit entry in ONE unit (storeReport).
 * The stored text is the signed report's RFC 8785 JSON, served byte for byte; `digest` is the SHA-256 of exactly
 * those bytes, which the signed event envelope carries, so a receiver that fetched the report can check it.
 */
import { createHash } from 'node:crypto';
import {
  assembleReport,
  canonicalJson,
  countDecisions,
  reportId,
  signDocument,
  type ComplianceReport,
} from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import { appendEvent } from '../events/append-event.ts';
import { rulePackOf } from '../compliance/rule-pack-catalogue.ts';
import { countPeriod } from './count-period.ts';
import { periodCoverage } from './period-coverage.ts';

export interface ReportRequest {
  start: Date;
  end: Date;
  /** the schedule's `every`; null on demand */
  every: string | null;
  frameworks: readonly string[];
  scheduleId: string | null;
}

export interface BuiltReport {
  report: ComplianceReport;
  /** RFC 8785 text of the signed report: what is stored and served */
  text: string;
  /** `sha-256:` + base64url SHA-256 of `text` */
  digest: string;
}

export const reportDigest = (text: string): string =>
  `sha-256:${createHash('sha256').update(text, 'utf8').digest('base64url')}`;

export const downloadPath = (id: string): string => `/v1/reports/${id}`;

export async function buildReport(ctx: AppContext, request: ReportRequest): Promise<BuiltReport> {
  const generatedAt = ctx.clock.now().toISOString();
  const bounds = { start: request.start.toISOString(), end: request.end.toISOString() };
  const rulePacks = request.frameworks.map((f, i) => rulePackOf(f, 'invalid_request', `/frameworks/${i}`));
  const counts = await countPeriod(ctx.store.db, bounds, generatedAt);
  const inPeriod = countDecisions(counts.decisions).total;
  const coverage = await periodCoverage(ctx, bounds, rulePacks, inPeriod);
  const unsigned = assembleReport(
    {
      report_id: reportId(ctx.newUuid()),
      issuer: ctx.config.issuerUrl,
      generated_at: generatedAt,
      schedule_id: request.scheduleId,
      period: { ...bounds, every: request.every },
    },
    counts,
    coverage,
  );
  const report = await signDocument(unsigned, ctx.keys.current());
  const text = canonicalJson(report);
  return { report, text, digest: reportDigest(text) };
}

export interface StoreOptions {
  /** who acted: the credential of an on-demand report; null for a scheduled one */
  actor: string | null;
  createdBy: string | null;
  reason: 'report_scheduled_period_ended' | 'report_requested';
}

/** Inside a write unit: the report's row, its `ns.report.generated` and the audit entry committing to it. */
export async function storeReport(
  trx: Transaction<Database>,
  ctx: AppContext,
  built: BuiltReport,
  options: StoreOptions,
): Promise<void> {
  const { report } = built;
  await appendEvent(trx, ctx, {
    event_type: 'ns.report.generated',
    actor_entity_id: options.actor,
    principal_entity_id: null,
    subject_ref: report.report_id,
    reason_code: options.reason,
    data: {
      report_id: report.report_id,
      schedule_id: report.schedule_id,
      period_start: report.period.start,
      period_end: report.period.end,
      digest: built.digest,
      download_path: downloadPath(report.report_id),
      frameworks: report.coverage.map((c) => c.framework),
    },
  });
  await trx
    .insertInto('compliance_reports')
    .values({
      report_id: report.report_id,
      schedule_id: report.schedule_id,
      period_start: report.period.start,
      period_end: report.period.end,
      digest: built.digest,
      document: built.text,
      generated_at: report.generated_at,
      created_by: options.createdBy,
    })
    .execute();
}
