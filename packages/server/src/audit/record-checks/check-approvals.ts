/**
 * Every approval against the decision that created it (its facts are part of that decision, whose record the
 * decision's audit entry commits to): the decision exists and names it, who and why are the decision's, `bound` is
 * what commit-decision.ts derives from the decision's request, and it was created at the decision's instant.
 * Its state columns (status, decided_at, sca_reference, consumed_by, updated_at) change by the service along the
 * guarded transitions, each change an event of its own (checked by check-events.ts); `status` and `consumed_by` must
 * be what the chain says (stateProblem below: the principal's answer entry, the decision that spent it), the rest
 * restate no record exactly; `expires_at` comes from the configured TTL and is not in any record. Pages by `seq`:
 * O(page) memory.
 */
import { canonicalJson, type AuditEntryJson, type DecisionRequest } from '@aar/core';
import type { Kysely } from 'kysely';
import {
  approvalBound,
  approvalEffect,
  createsApproval,
  type ApprovalEffect,
} from '../../services/authorize/approval-effect.ts';
import { decodeDecisionRecordWithoutPolicySet } from '../../services/decisions/record-codec.ts';
import type { Database } from '../../store/index.ts';
import { APPROVAL_ANSWERS } from '../../services/authorize/chained-approval.ts';
import { entriesById } from './entries-by-id.ts';
import { stateEntriesOf } from './state-entries.ts';
import type { RecordFindings } from './record-findings.ts';

type Rec = { request?: unknown; snapshot?: { approval?: { approval_id?: unknown } | null }; result?: unknown };

export async function checkApprovals(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = findings.scope.after.approvals;
  for (;;) {
    const rows = await db
      .selectFrom('approvals as a')
      .leftJoin('decisions as d', 'd.policy_decision_id', 'a.policy_decision_id')
      .leftJoin('decisions as spender', 'spender.policy_decision_id', 'a.consumed_by')
      .select([
        'a.seq',
        'a.approval_id',
        'a.policy_decision_id',
        'a.principal_entity_id',
        'a.actor_entity_id',
        'a.reason',
        'a.bound',
        'a.created_at',
        'a.status',
        'a.consumed_by',
        'spender.policy_decision_id as spender_id',
        'spender.approval_id as spender_approval_id',
        'spender.reason as spender_reason',
        'd.audit_ref',
        'd.approval_id as decision_approval_id',
        'd.reason as decision_reason',
        'd.decision',
        'd.request',
        'd.snapshot',
        'd.result',
        'd.record',
        'd.now',
      ])
      .where('a.seq', '>', after)
      .orderBy('a.seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const entries = await entriesById(
      db,
      rows.flatMap((r) => (r.audit_ref === null ? [] : [r.audit_ref])),
      findings.size,
    );
    const answers = await stateEntriesOf(
      db,
      rows.map((r) => r.approval_id),
      APPROVAL_ANSWERS,
      findings.size,
    );
    for (const row of rows) {
      const record = { table: 'approvals', id: row.approval_id };
      if (row.audit_ref === null || row.request === null) {
        findings.fail({ reason: 'record_unanchored', record, detail: 'policy_decision_id' });
        continue;
      }
      const entry = entries.get(row.audit_ref);
      if (!entry) {
        // a decision beyond the tip read (concurrent), or unanchored (check-decisions names it): the next run's
        findings.saw('approvals', Number(row.seq), true);
        continue;
      }
      if (answers.beyond.has(row.approval_id)) {
        // answered during this run: its answer's entry is the next run's
        findings.saw('approvals', Number(row.seq), true);
        continue;
      }
      findings.saw('approvals', Number(row.seq));
      const detail =
        approvalProblem(row as typeof row & { request: string; snapshot: string; result: string }) ??
        stateProblem(row, answers.below.get(row.approval_id) ?? []);
      if (detail) findings.fail({ reason: 'record_mismatch', index: entry.index, record, detail });
    }
  }
}

function approvalProblem(row: {
  approval_id: string;
  principal_entity_id: string;
  actor_entity_id: string;
  reason: string;
  bound: string;
  created_at: string;
  decision_approval_id: string | null;
  decision_reason: string | null;
  decision: string | null;
  request: string;
  snapshot: string;
  result: string;
  record: Buffer | null;
  now: string | null;
}): string | undefined {
  if (row.decision_approval_id !== row.approval_id) return 'policy_decision_id';
  let request: Record<string, unknown>;
  let effect: ApprovalEffect;
  try {
    // the decision's own record (its digest is checked by check-decisions.ts), in either shape (migration 0010)
    const rec = (
      row.record === null
        ? { request: JSON.parse(row.request), snapshot: JSON.parse(row.snapshot), result: JSON.parse(row.result) }
        : JSON.parse(decodeDecisionRecordWithoutPolicySet(row.record))
    ) as Rec;
    request = rec.request as Record<string, unknown>;
    const heldId = rec.snapshot?.approval?.approval_id;
    effect = approvalEffect(
      request as { action: string },
      rec.result as { decision: string; reason: string },
      typeof heldId === 'string' ? heldId : null,
    );
  } catch {
    return 'policy_decision_id';
  }
  // the approval was created by its decision, by the rule commit-decision.ts writes by (approval-effect.ts)
  if (!createsApproval(effect)) return 'policy_decision_id';
  if (row.principal_entity_id !== request.principal_entity_id) return 'principal_entity_id';
  if (row.actor_entity_id !== request.actor_entity_id) return 'actor_entity_id';
  if (row.reason !== row.decision_reason) return 'reason';
  if (row.created_at !== row.now) return 'created_at';
  const bound = approvalBound(request as unknown as DecisionRequest, effect);

  let stored: unknown;
  try {
    stored = JSON.parse(row.bound);
  } catch {
    return 'bound';
  }
  // by RFC 8785 form: the request read from a record (migration 0010) has its members in canonical order
  return canonicalJson(stored) === canonicalJson(bound) ? undefined : 'bound';
}

/**
 * The state columns as the chain leaves them: `pending` until the principal's answer (`ns.approval.approved` or
 * `ns.approval.rejected`, at most one); `approved` until a decision spends it, then `consumed` by that decision (an
 * allowed retry naming it, whose record check-decisions.ts checks; that check also finds an approved row some
 * decision already spent). `expired` is never written (a lapse is read from `expires_at`), so never backed.
 */
function stateProblem(
  row: {
    approval_id: string;
    status: string;
    consumed_by: string | null;
    spender_id: string | null;
    spender_approval_id: string | null;
    spender_reason: string | null;
  },
  answers: readonly AuditEntryJson[],
): string | undefined {
  const answer = answers.length === 1 ? answers[0]!.kind : answers.length === 0 ? undefined : 'several';
  const consumedBySpender =
    row.consumed_by !== null &&
    row.spender_approval_id === row.approval_id &&
    row.spender_reason === 'approved_by_principal';
  switch (row.status) {
    case 'pending':
      return answer === undefined && row.consumed_by === null ? undefined : 'status';
    case 'approved':
      return answer === 'ns.approval.approved' && row.consumed_by === null ? undefined : 'status';
    case 'rejected':
      return answer === 'ns.approval.rejected' && row.consumed_by === null ? undefined : 'status';
    case 'consumed':
      if (answer !== 'ns.approval.approved') return 'status';
      // a spending decision deleted: its own entry names it (record_missing), at the index where it was committed
      if (row.consumed_by !== null && row.spender_id === null) return undefined;
      return consumedBySpender ? undefined : 'consumed_by';
    default:
      return 'status';
  }
}
