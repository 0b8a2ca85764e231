/**
 * Every decision row against its audit entry: the decision record rebuilt from the row's columns (exactly what the
 * entry's `record_digest` commits to, as an evidence pack rebuilds it) has that digest, and every column that
 * restates the record (`decision`, `reason`, who, what, the map's ids, the reservation…) agrees with it, so a row
 * edited with the guards dropped is found whichever column was edited. Only `outcome` and `updated_at` change after
 * the decision (state columns, write-once-guards.ts); the outcome's changes are events of their own.
 * Pages by `seq`: O(page) memory.
 */
import { canonicalDecisionRecord, type DecisionRecordInput } from '@aar/core';
import type { Kysely, Selectable } from 'kysely';
import type { Database, DecisionsTable } from '../../store/index.ts';
import { digestOfCanonical } from '../audit-entry.ts';
import { DECISION_ENTRY_KIND } from './decision-kinds.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';

export async function checkDecisions(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = -1;
  for (;;) {
    const rows = await db
      .selectFrom('decisions')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const entries = await entriesById(
      db,
      rows.map((r) => r.audit_ref),
      findings.size,
    );
    for (const row of rows) {
      const record = { table: 'decisions', id: row.policy_decision_id };
      const entry = entries.get(row.audit_ref);
      if (!entry) {
        if (!(await existsBeyond(db, row.audit_ref, findings.size))) {
          findings.fail({ reason: 'record_unanchored', record, detail: `audit_ref ${row.audit_ref}` });
        }
        continue;
      }
      findings.decisionAnchored.set(entry.index);
      const problem = decisionProblem(row, entry.parsed?.record_digest, entry.parsed?.kind);
      if (problem) findings.fail({ ...problem, index: entry.index, record });
    }
  }
}

type Problem = { reason: 'record_digest_mismatch' | 'record_mismatch'; detail: string } | undefined;

function decisionProblem(
  row: Selectable<DecisionsTable>,
  committedDigest: string | undefined,
  kind: string | undefined,
): Problem {
  let input: DecisionRecordInput;
  try {
    input = {
      policy_decision_id: row.policy_decision_id,
      request: JSON.parse(row.request) as DecisionRecordInput['request'],
      snapshot: JSON.parse(row.snapshot) as DecisionRecordInput['snapshot'],
      now: row.now,
      result: JSON.parse(row.result) as DecisionRecordInput['result'],
      engine_version: row.engine_version,
      decision_map: JSON.parse(row.decision_map) as DecisionRecordInput['decision_map'],
    };
  } catch {
    return { reason: 'record_digest_mismatch', detail: 'a JSON column does not parse' };
  }
  if (digestOfCanonical(canonicalDecisionRecord(input)) !== committedDigest) {
    return {
      reason: 'record_digest_mismatch',
      detail: 'request, snapshot, now, result, engine_version or decision_map',
    };
  }
  const request = input.request as unknown as Record<string, unknown>;
  const result = input.result as unknown as Record<string, unknown>;
  const map = input.decision_map as unknown as Record<string, unknown>;
  const grants = (input.snapshot as unknown as { grants?: Array<{ grant_id?: unknown }> }).grants ?? [];
  const reservation = result.reservation ?? null;
  const expected: Record<string, unknown> = {
    decision: result.decision,
    reason: result.reason,
    actor_entity_id: request.actor_entity_id,
    principal_entity_id: request.principal_entity_id,
    subject: request.subject,
    action: request.action,
    leaf_grant_id: grants[grants.length - 1]?.grant_id ?? null,
    decision_map_id: map.decision_map_id,
    audit_ref: map.audit_ref,
    evidence_refs: JSON.stringify(map.evidence_refs),
    reservation: reservation === null ? null : JSON.stringify(reservation),
    spend_day: reservation === null ? null : row.now.slice(0, 10),
    created_at: row.now,
  };
  for (const [column, value] of Object.entries(expected)) {
    const stored = (row as unknown as Record<string, unknown>)[column];
    const same = column === 'reservation' && stored !== null ? sameJson(stored, value) : stored === value;
    if (!same) return { reason: 'record_mismatch', detail: column };
  }
  const heldApproval = (input.snapshot as unknown as { approval?: { approval_id?: unknown } | null }).approval;
  if (
    result.decision === 'require_approval'
      ? row.approval_id === null
      : row.approval_id !== (heldApproval?.approval_id ?? null)
  ) {
    return { reason: 'record_mismatch', detail: 'approval_id' };
  }
  if (kind !== DECISION_ENTRY_KIND[String(result.decision)]) return { reason: 'record_mismatch', detail: 'kind' };
  if (row.outcome !== 'none' && reservation === null) return { reason: 'record_mismatch', detail: 'outcome' };
  if (row.outcome === 'none' && reservation !== null) return { reason: 'record_mismatch', detail: 'outcome' };
  return undefined;
}

function sameJson(stored: unknown, expected: unknown): boolean {
  try {
    return typeof expected === 'string' && JSON.stringify(JSON.parse(String(stored))) === expected;
  } catch {
    return false;
  }
}
