/**
 * Every stored proof bundle (CONTRACT section 12) against what vouches for it. A bundle is signed by the service when
 * it is assembled and stored write-once; GET /v1/bundles/{id} serves those bytes as they are, so a stored bundle must
 * be exactly what was signed:
 * - `document` is RFC 8785 text whose signature verifies with the service's keys (an edited byte breaks it);
 * - its columns restate it (`bundle_id`, `created_at`, and the decision its purpose manifest names);
 * - it is anchored in the chain by its decision: the evidence pack it embeds carries the exact bytes of that
 *   decision's audit entry (the finding names that entry's index).
 * `created_by` (the credential that asked for the bundle) is in no signed or chained record: it is never served nor
 * read by any decision (docs/audit.md, "Outside the chain"). Bundles carry no `seq` mark: every run (incremental too)
 * checks them all, a page at a time (O(page) memory; a page's signatures verify in parallel on the thread pool).
 */
import { verifyDocument, type Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { canonicalDocument } from './canonical-document.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings, RecordFailureReason } from './record-findings.ts';

interface BundleRow {
  seq: number;
  bundle_id: string;
  policy_decision_id: string;
  document: string;
  created_at: string;
  audit_ref: string | null;
}

export async function checkBundles(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: BundleRow[] = await db
      .selectFrom('bundles as b')
      .leftJoin('decisions as d', 'd.policy_decision_id', 'b.policy_decision_id')
      .select(['b.seq', 'b.bundle_id', 'b.policy_decision_id', 'b.document', 'b.created_at', 'd.audit_ref'])
      .where('b.seq', '>', after)
      .orderBy('b.seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const entries = await entriesById(
      db,
      rows.flatMap((r) => (r.audit_ref === null ? [] : [r.audit_ref])),
      findings.size,
    );
    await Promise.all(
      rows.map(async (row) => {
        const record = { table: 'bundles', id: row.bundle_id };
        const entry = row.audit_ref === null ? undefined : entries.get(row.audit_ref);
        if (!entry) {
          if (row.audit_ref === null || !(await existsBeyond(db, row.audit_ref, findings.size))) {
            findings.fail({ reason: 'record_unanchored', record, detail: 'policy_decision_id' });
          }
          return;
        }
        const problem = await bundleProblem(row, entry.text, jwks);
        if (problem) findings.fail({ ...problem, index: entry.index, record });
      }),
    );
  }
}

async function bundleProblem(
  row: BundleRow,
  entryText: string,
  jwks: Jwks,
): Promise<{ reason: RecordFailureReason; detail: string } | undefined> {
  const bundle = canonicalDocument(row.document);
  if (!bundle) return { reason: 'record_digest_mismatch', detail: 'document' };
  if (!(await verifyDocument(bundle, jwks)).valid) return { reason: 'record_signature_invalid', detail: 'document' };
  if (bundle.bundle_id !== row.bundle_id) return { reason: 'record_mismatch', detail: 'bundle_id' };
  if (bundle.created_at !== row.created_at) return { reason: 'record_mismatch', detail: 'created_at' };
  const purpose = bundle.purpose_manifest as { policy_decision_id?: unknown } | undefined;
  if (purpose?.policy_decision_id !== row.policy_decision_id) {
    return { reason: 'record_mismatch', detail: 'policy_decision_id' };
  }
  const pack = bundle.evidence_pack as { policy_decision_id?: unknown; audit_entry?: unknown } | undefined;
  if (pack?.policy_decision_id !== row.policy_decision_id || pack.audit_entry !== entryText) {
    return { reason: 'record_mismatch', detail: 'evidence_pack' };
  }
  return undefined;
}
