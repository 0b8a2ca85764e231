/**
 * Compliance reports and their schedules (migration 0028, docs/reports.md) against their signatures and their
 * chained events (whose envelopes check-events.ts holds to their audit entries):
 * - a report: `document` is RFC 8785 text whose signature verifies with the service's keys; `digest` is its SHA-256;
 *   the columns restate it (`report_id`, `schedule_id`, `period_start`, `period_end`, `generated_at`); and its
 *   `ns.report.generated` names the same digest, schedule and period (a report without its event was never
 *   announced, so never stored by the service).
 * - a schedule: `every`, `anchor`, `frameworks` and `created_at` are its `ns.report.scheduled`'s (`occurred_at`);
 *   `deleted_at` is its `ns.report.schedule_deleted`'s `occurred_at`, or null without one; the period cursor
 *   (`next_start`, `next_end`) follows its last report (or starts at the event's `first_period_start`).
 * `seq`, `created_by` and a schedule's `description` are outside the chain (outside-the-chain.ts). Every run checks
 * them all (no `seq` mark), as the other stored documents.
 */
import { parseEvery, periodContaining, verifyDocument, type Jwks } from '@aar/core';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { ComplianceReportsTable, ReportSchedulesTable } from '../../store/schema-reports.ts';
import { reportDigest } from '../../services/reports/generate-report.ts';
import { canonicalDocument } from './canonical-document.ts';
import type { RecordFailureReason, RecordFindings } from './record-findings.ts';

type Problem = { reason: RecordFailureReason; detail: string } | undefined;

interface Envelope {
  occurred_at?: unknown;
  data?: Record<string, unknown>;
}

async function envelopesOf(
  db: Kysely<Database>,
  types: readonly string[],
  subjects: readonly string[],
): Promise<Map<string, Envelope>> {
  const out = new Map<string, Envelope>();
  if (subjects.length === 0) return out;
  const rows = await db
    .selectFrom('events')
    .select(['event_type', 'subject_ref', 'envelope'])
    .where('event_type', 'in', [...types])
    .where('subject_ref', 'in', [...subjects])
    .execute();
  for (const row of rows) {
    try {
      out.set(`${row.event_type} ${row.subject_ref}`, JSON.parse(row.envelope) as Envelope);
    } catch {
      // unreadable: check-events.ts names the event; the record is then unanchored
    }
  }
  return out;
}

async function reportProblem(
  row: Selectable<ComplianceReportsTable>,
  jwks: Jwks,
  event: Envelope | undefined,
): Promise<Problem> {
  const report = canonicalDocument(row.document);
  if (!report) return { reason: 'record_digest_mismatch', detail: 'document' };
  if (!(await verifyDocument(report, jwks)).valid) return { reason: 'record_signature_invalid', detail: 'document' };
  if (row.digest !== reportDigest(row.document)) return { reason: 'record_mismatch', detail: 'digest' };
  const period = (report.period ?? {}) as { start?: unknown; end?: unknown };
  const restated: Array<[string, unknown, unknown]> = [
    ['report_id', row.report_id, report.report_id],
    ['schedule_id', row.schedule_id, report.schedule_id],
    ['period_start', row.period_start, period.start],
    ['period_end', row.period_end, period.end],
    ['generated_at', row.generated_at, report.generated_at],
  ];
  for (const [column, actual, signed] of restated) {
    if (actual !== signed) return { reason: 'record_mismatch', detail: column };
  }
  if (!event?.data) return { reason: 'record_unanchored', detail: 'ns.report.generated' };
  const announced: Array<[string, unknown, unknown]> = [
    ['digest', row.digest, event.data.digest],
    ['schedule_id', row.schedule_id, event.data.schedule_id],
    ['period_start', row.period_start, event.data.period_start],
    ['period_end', row.period_end, event.data.period_end],
  ];
  for (const [column, actual, chained] of announced) {
    if (actual !== chained) return { reason: 'record_mismatch', detail: column };
  }
  return undefined;
}

export async function checkReports(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('compliance_reports')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.seq);
    const events = await envelopesOf(
      db,
      ['ns.report.generated'],
      rows.map((r) => r.report_id),
    );
    await Promise.all(
      rows.map(async (row) => {
        const problem = await reportProblem(row, jwks, events.get(`ns.report.generated ${row.report_id}`));
        if (problem) findings.fail({ ...problem, record: { table: 'compliance_reports', id: row.report_id } });
      }),
    );
  }
  await checkSchedules(db, findings, pageSize);
}

/** The cursor a schedule must be at: the period after its last report, or its first period. */
function expectedCursor(
  row: Selectable<ReportSchedulesTable>,
  lastEnd: string | undefined,
  first: unknown,
): { start: string; end: string } | undefined {
  const start = lastEnd ?? first;
  if (typeof start !== 'string') return undefined;
  try {
    const every = parseEvery(row.every);
    const at = new Date(start);
    const period = periodContaining(every, at, row.anchor === null ? at : new Date(row.anchor));
    return { start, end: period.end.toISOString() };
  } catch {
    return undefined;
  }
}

function scheduleProblem(
  row: Selectable<ReportSchedulesTable>,
  scheduled: Envelope | undefined,
  deleted: Envelope | undefined,
  lastEnd: string | undefined,
): Problem {
  const data = scheduled?.data;
  if (!data) return { reason: 'record_unanchored', detail: 'ns.report.scheduled' };
  const restated: Array<[string, unknown, unknown]> = [
    ['every', row.every, data.every],
    ['anchor', row.anchor, data.anchor],
    ['frameworks', row.frameworks, JSON.stringify(data.frameworks)],
    ['created_at', row.created_at, scheduled.occurred_at],
    ['deleted_at', row.deleted_at, deleted?.occurred_at ?? null],
  ];
  for (const [column, actual, chained] of restated) {
    if (actual !== chained) return { reason: 'record_mismatch', detail: column };
  }
  const cursor = expectedCursor(row, lastEnd, data.first_period_start);
  if (!cursor || row.next_start !== cursor.start) return { reason: 'record_mismatch', detail: 'next_start' };
  if (row.next_end !== cursor.end) return { reason: 'record_mismatch', detail: 'next_end' };
  return undefined;
}

async function checkSchedules(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('report_schedules')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const ids = rows.map((r) => r.schedule_id);
    const events = await envelopesOf(db, ['ns.report.scheduled', 'ns.report.schedule_deleted'], ids);
    const last = await db
      .selectFrom('compliance_reports')
      .select(['schedule_id', (eb) => eb.fn.max('period_end').as('last_end')])
      .where('schedule_id', 'in', ids)
      .groupBy('schedule_id')
      .execute();
    const lastEnd = new Map(last.map((r) => [r.schedule_id, r.last_end as string]));
    for (const row of rows) {
      const problem = scheduleProblem(
        row,
        events.get(`ns.report.scheduled ${row.schedule_id}`),
        events.get(`ns.report.schedule_deleted ${row.schedule_id}`),
        lastEnd.get(row.schedule_id),
      );
      if (problem) findings.fail({ ...problem, record: { table: 'report_schedules', id: row.schedule_id } });
    }
  }
}
