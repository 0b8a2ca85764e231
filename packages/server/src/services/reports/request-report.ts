/**
 * `POST /v1/reports`: a report for a past period, made now and stored like a scheduled one (with its
 * `ns.report.generated`, reason `report_requested`). The period must have ended (`to` not after now: a report is
 * about what has happened), start before it ends, and last at most 366 days; each refusal is 400 naming the field,
 * before anything is read or written.
 */
import { fieldError, MAX_PERIOD_MS, type ComplianceReport } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { buildReport, storeReport } from './generate-report.ts';
import { checkFrameworks } from './report-schedules.ts';

export interface ReportRequestBody {
  from: string;
  to: string;
  frameworks?: string[];
}

function instant(value: string, path: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw fieldError('invalid_request', path, 'must be an RFC 3339 date-time');
  return date;
}

export async function requestReport(
  ctx: AppContext,
  credential: Credential | null,
  body: ReportRequestBody,
): Promise<{ report: ComplianceReport; text: string }> {
  const start = instant(body.from, '/from');
  const end = instant(body.to, '/to');
  if (start.getTime() >= end.getTime()) throw fieldError('invalid_request', '/from', 'must be before `to`');
  if (end.getTime() > ctx.clock.now().getTime()) {
    throw fieldError('invalid_request', '/to', 'may not be in the future: a report is about a period that has ended');
  }
  if (end.getTime() - start.getTime() > MAX_PERIOD_MS) {
    throw fieldError('invalid_request', '/from', 'the period may last at most 366 days');
  }
  const frameworks = checkFrameworks(body.frameworks);
  const built = await buildReport(ctx, { start, end, every: null, frameworks, scheduleId: null });
  await ctx.writer.run((trx) =>
    storeReport(trx, ctx, built, {
      actor: actorOf(credential),
      createdBy: credential?.token_id ?? null,
      reason: 'report_requested',
    }),
  );
  return { report: built.report, text: built.text };
}
