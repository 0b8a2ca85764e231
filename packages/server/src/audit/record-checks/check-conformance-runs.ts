/**
 * Every stored conformance report (CONTRACT section 14) against its own signature. A report is signed by the service
 * when its run ends and stored write-once; GET /v1/conformance/runs/{id} serves those bytes as they are, certification
 * signs over them and listings cite them for their trust score, so a stored report must be exactly what was signed:
 * - `document` is RFC 8785 text whose signature verifies with the service's keys (an edited byte breaks it);
 * - the summary columns restate it (`report_id`, `passed`, `fixtures`, `failed`, `created_at` = `finished_at`): the
 *   self-audit and the console read those columns without parsing the report.
 * A report a listing brought (`origin` `publisher`, migration 0015) is signed by its publisher's key, not the
 * service's: its signature is checked where it is used (services/marketplace/listing-evidence.ts), its columns here.
 * A report is not an audited state change: no audit entry commits to it, so the findings name no index, and a
 * deleted report is not told apart from one never run (it changes no decision; a listing citing it is refused then).
 * `created_by` is in no signed or chained record; it is never served nor read (docs/audit.md, "Outside the chain").
 * Reports carry no `seq` mark: every run (incremental too) checks them all, a page at a time.
 */
import { canonicalJson, verifyDocument, type Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { RecordFindings, RecordFailureReason } from './record-findings.ts';

interface ReportRow {
  seq: number;
  /** who signed it (migration 0015): `self` (this service) or `publisher` (a listing's evidence); absent before */
  origin?: string;
  report_id: string;
  passed: number;
  fixtures: number;
  failed: number;
  document: string;
  created_at: string;
}

export async function checkConformanceRuns(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: ReportRow[] = await db
      .selectFrom('conformance_runs')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    await Promise.all(
      rows.map(async (row) => {
        const problem = await reportProblem(row, jwks);
        if (problem) findings.fail({ ...problem, record: { table: 'conformance_runs', id: row.report_id } });
      }),
    );
  }
}

async function reportProblem(
  row: ReportRow,
  jwks: Jwks,
): Promise<{ reason: RecordFailureReason; detail: string } | undefined> {
  let report: Record<string, unknown>;
  try {
    report = JSON.parse(row.document) as Record<string, unknown>;
    if (typeof report !== 'object' || report === null || canonicalJson(report) !== row.document) throw new Error();
  } catch {
    return { reason: 'record_digest_mismatch', detail: 'document' };
  }
  const origin = row.origin ?? 'self';
  if (origin !== 'self' && origin !== 'publisher') return { reason: 'record_mismatch', detail: 'origin' };
  // a publisher's report is signed by the publisher's registered key, checked where it is used (listing-evidence.ts)
  if (origin === 'self' && !(await verifyDocument(report, jwks)).valid) {
    return { reason: 'record_signature_invalid', detail: 'document' };
  }
  const summary = (report.summary ?? {}) as { fixtures?: unknown; failed?: unknown };
  const expected: Array<[keyof ReportRow, unknown]> = [
    ['report_id', report.report_id],
    ['passed', report.passed === true ? 1 : report.passed === false ? 0 : undefined],
    ['fixtures', summary.fixtures],
    ['failed', summary.failed],
    ['created_at', report.finished_at],
  ];
  for (const [column, value] of expected) {
    const actual = column === 'report_id' || column === 'created_at' ? row[column] : Number(row[column]);
    if (actual !== value) return { reason: 'record_mismatch', detail: column };
  }
  return undefined;
}
