/**
 * Every stored self-audit report (docs/self-audit.md) against its own signature: signed by the service when the run
 * ends, stored write-once (migration 0012) and served byte for byte, so a stored report must be exactly what was
 * signed: `document` is RFC 8785 text whose signature verifies with the service's keys, and the summary columns
 * restate it (`run_id`, `passed`, `failed` = `summary.fail`, `created_at` = `finished_at`). A report is not an
 * audited state change: no entry commits to it, so findings name no index. `created_by` is in no signed or chained
 * record, never served nor read (docs/audit.md, "Outside the chain"). Every run (incremental too) checks them all.
 */
import { verifyDocument, type Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { canonicalDocument } from './canonical-document.ts';
import type { RecordFindings, RecordFailureReason } from './record-findings.ts';

interface RunRow {
  seq: number;
  run_id: string;
  passed: number;
  failed: number;
  document: string;
  created_at: string;
}

export async function checkSelfAuditRuns(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: RunRow[] = await db
      .selectFrom('self_audit_runs')
      .select(['seq', 'run_id', 'passed', 'failed', 'document', 'created_at'])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    await Promise.all(
      rows.map(async (row) => {
        const problem = await runProblem(row, jwks);
        if (problem) findings.fail({ ...problem, record: { table: 'self_audit_runs', id: row.run_id } });
      }),
    );
  }
}

async function runProblem(
  row: RunRow,
  jwks: Jwks,
): Promise<{ reason: RecordFailureReason; detail: string } | undefined> {
  const report = canonicalDocument(row.document);
  if (!report) return { reason: 'record_digest_mismatch', detail: 'document' };
  if (!(await verifyDocument(report, jwks)).valid) return { reason: 'record_signature_invalid', detail: 'document' };
  const summary = (report.summary ?? {}) as { fail?: unknown };
  const expected: Array<[keyof RunRow, unknown, unknown]> = [
    ['run_id', row.run_id, report.run_id],
    ['passed', Number(row.passed), report.passed === true ? 1 : report.passed === false ? 0 : undefined],
    ['failed', Number(row.failed), summary.fail],
    ['created_at', row.created_at, report.finished_at],
  ];
  for (const [column, actual, signed] of expected) {
    if (actual !== signed) return { reason: 'record_mismatch', detail: column };
  }
  return undefined;
}
