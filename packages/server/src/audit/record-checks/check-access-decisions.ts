/**
 * Every stored AuthZEN generic-domain decision (`access_decisions`, migration 0021; services/authzen) against what
 * vouches for it: the row must hold the RFC 8785 text of a signed `ns.access_decision.v1` whose signature verifies
 * with the service's keys, whose columns (`access_decision_id`, `audit_id`, `decided_at`) restate it, and whose
 * digest is the record digest its audit entry (kind `access_decision`, named by `audit_id`) commits to. One edited
 * byte of any column is found. Not found here: a row deleted with the write-once guards dropped (its entry is of a
 * kind an external append may also use, so the walk cannot demand a record for it; docs/audit.md "Outside the
 * chain" says so). Every run checks every row, a page at a time (O(page) memory).
 */
import { verifyDocument, type Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import { digestOfCanonical } from '../audit-entry.ts';
import type { Database } from '../../store/index.ts';
import { canonicalDocument } from './canonical-document.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFailureReason, RecordFindings } from './record-findings.ts';

interface AccessDecisionRow {
  seq: number;
  access_decision_id: string;
  audit_id: string;
  decided_at: string;
  document: string;
}

export async function checkAccessDecisions(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: AccessDecisionRow[] = await db
      .selectFrom('access_decisions')
      .select(['seq', 'access_decision_id', 'audit_id', 'decided_at', 'document'])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const entries = await entriesById(
      db,
      rows.map((r) => r.audit_id),
      findings.size,
    );
    await Promise.all(
      rows.map(async (row) => {
        const record = { table: 'access_decisions', id: row.access_decision_id };
        const entry = entries.get(row.audit_id);
        if (!entry) {
          if (!(await existsBeyond(db, row.audit_id, findings.size))) {
            findings.fail({ reason: 'record_unanchored', record, detail: 'audit_id' });
          }
          return;
        }
        const problem = await rowProblem(row, entry.parsed, jwks);
        if (problem) findings.fail({ ...problem, index: entry.index, record });
      }),
    );
  }
}

async function rowProblem(
  row: AccessDecisionRow,
  entry: { kind?: unknown; subject_ref?: unknown; record_digest?: unknown } | undefined,
  jwks: Jwks,
): Promise<{ reason: RecordFailureReason; detail: string } | undefined> {
  if (!entry || entry.kind !== 'access_decision' || entry.subject_ref !== row.access_decision_id) {
    return { reason: 'record_mismatch', detail: 'audit_id' };
  }
  if (entry.record_digest !== digestOfCanonical(row.document))
    return { reason: 'record_digest_mismatch', detail: 'document' };
  const doc = canonicalDocument(row.document);
  if (!doc) return { reason: 'record_digest_mismatch', detail: 'document' };
  if (!(await verifyDocument(doc, jwks)).valid) return { reason: 'record_signature_invalid', detail: 'document' };
  if (doc.access_decision_id !== row.access_decision_id)
    return { reason: 'record_mismatch', detail: 'access_decision_id' };
  if (doc.audit_ref !== row.audit_id) return { reason: 'record_mismatch', detail: 'audit_id' };
  if (doc.decided_at !== row.decided_at) return { reason: 'record_mismatch', detail: 'decided_at' };
  return undefined;
}
