/**
 * Every stored conformance report (CONTRACT section 14) against its own signature. A report is signed by the service
 * when its run ends and stored write-once; GET /v1/conformance/runs/{id} serves those bytes as they are, certification
 * signs over them and listings cite them for their trust score, so a stored report must be exactly what was signed:
 * - `document` is RFC 8785 text whose signature verifies with the service's keys (an edited byte breaks it);
 * - the summary columns restate it (`report_id`, `passed`, `fixtures`, `failed`, `created_at` = `finished_at`): the
 *   self-audit and the console read those columns without parsing the report.
 * A report a listing brought (`origin` `publisher`, migration 0015) is signed by its publisher's key, not the
 * service's: it must verify with the registered key of the publisher of a listing that cites it.
 * A report is not an audited state change: no audit entry commits to it, so the findings name no index, and a
 * deleted report is not told apart from one never run (it changes no decision; a listing citing it is refused then).
 * `created_by` is in no signed or chained record; it is never served nor read (docs/audit.md, "Outside the chain").
 * Reports carry no `seq` mark: every run (incremental too) checks them all, a page at a time.
 */
import { verifyDocument, type Ed25519PublicJwk, type Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { canonicalDocument } from './canonical-document.ts';
import type { RecordFindings, RecordFailureReason } from './record-findings.ts';

interface ReportRow {
  seq: number;
  /** a self-run: the credential; a report a listing brought: the publisher entity (normalize-listing.ts) */
  created_by?: string | null;
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
        const problem = await reportProblem(db, row, jwks);
        if (problem) findings.fail({ ...problem, record: { table: 'conformance_runs', id: row.report_id } });
      }),
    );
  }
}

async function reportProblem(
  db: Kysely<Database>,
  row: ReportRow,
  jwks: Jwks,
): Promise<{ reason: RecordFailureReason; detail: string } | undefined> {
  const report = canonicalDocument(row.document);
  if (!report) return { reason: 'record_digest_mismatch', detail: 'document' };
  const origin = row.origin ?? 'self';
  if (origin !== 'self' && origin !== 'publisher') return { reason: 'record_mismatch', detail: 'origin' };
  if (origin === 'self') {
    if (!(await verifyDocument(report, jwks)).valid) return { reason: 'record_signature_invalid', detail: 'document' };
  } else {
    const keys = await publisherKeys(db, row.report_id, row.created_by ?? null);
    if (keys.length === 0) return { reason: 'record_unanchored', detail: 'origin' };
    // whichever key the report names, only the publishers' registered keys are tried
    const results = await Promise.all(keys.map((key) => verifyDocument(report, () => key)));
    if (!results.some((r) => r.valid)) return { reason: 'record_signature_invalid', detail: 'document' };
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

/**
 * A report a listing brought (`origin` `publisher`) is trusted with the registered key of its publisher entity, never
 * the report's own `key_id` (services/marketplace/listing-evidence.ts): the entity that brought it (`created_by`; a
 * listing refused after its report was stored leaves the report citing nothing) and the publishers of the listings
 * that cite it. The entities' keys are checked against their events (check-entities.ts). None: anchored by nothing.
 */
async function publisherKeys(
  db: Kysely<Database>,
  reportId: string,
  broughtBy: string | null,
): Promise<Ed25519PublicJwk[]> {
  const citing = await db
    .selectFrom('listings')
    .select('document')
    .where('conformance_report_id', '=', reportId)
    .execute();
  const entityIds = citing.flatMap((l) => {
    try {
      const id = (JSON.parse(l.document) as { publisher?: { entity_id?: unknown } }).publisher?.entity_id;
      return typeof id === 'string' ? [id] : [];
    } catch {
      return [];
    }
  });
  if (broughtBy !== null) entityIds.push(broughtBy);
  if (entityIds.length === 0) return [];
  const entities = await db
    .selectFrom('entities')
    .select('public_key_jwk')
    .where('entity_id', 'in', [...new Set(entityIds)])
    .execute();
  return entities.flatMap((e) => {
    try {
      return e.public_key_jwk === null ? [] : [JSON.parse(e.public_key_jwk) as Ed25519PublicJwk];
    } catch {
      return [];
    }
  });
}
