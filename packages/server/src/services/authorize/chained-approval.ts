/**
 * An approved approval lets one purchase through (`approved_by_principal`), so before a retry is decided on it
 * (commit-decision.ts, under the row's lock) the approval must be what the chain says (chained-state.ts):
 * - approved: the chain holds the principal's `ns.approval.approved` entry for it, and no `ns.approval.rejected`;
 * - bound to what its decision asked for: `bound` is what approval-effect.ts derives from the request of the decision
 *   that created it, read from that decision's record, whose digest its audit entry commits to;
 * - not spent: no decision has consumed it already (an attacker could set a consumed row back to `approved`).
 * The first two are facts that never change once true, so they are kept in the instance's ChainedStateCache (the
 * instance that wrote the answer or created the approval knows them without a read); the third is read every time,
 * over the actor's decisions since the one that asked (the `decisions_actor` index), once per approved retry (not per
 * authorize: only a retry naming an approved approval pays it, and each approval is spent once).
 */
import { canonicalDecisionRecord, canonicalJson, parseAuditEntryText, type DecisionRecordInput } from '@aar/core';
import type { Transaction } from 'kysely';
import { digestOfCanonical } from '../../audit/audit-entry.ts';
import type { Database } from '../../store/index.ts';
import { preloadPolicySetTexts } from '../decisions/policy-set-texts.ts';
import { decisionPartsOf } from '../decisions/stored-decision.ts';
import { approvalBound, approvalEffect } from './approval-effect.ts';
import { chainedEntriesOf, integrityFailure, type ChainedStateCache } from './chained-state.ts';

export const APPROVAL_ANSWERS = ['ns.approval.approved', 'ns.approval.rejected'] as const;

export interface HeldApprovalRow {
  approval_id: string;
  policy_decision_id: string;
  actor_entity_id: string;
  status: string;
  bound: string;
}

export const approvedKey = (approvalId: string): string => `approval-approved\n${approvalId}`;
export const boundKey = (approvalId: string, bound: string): string => `approval-bound\n${approvalId}\n${bound}`;

/** Refuses (integrityFailure) an approved approval the chain does not back; other states let nothing through. */
export async function assertApprovalChained(
  trx: Transaction<Database>,
  cache: ChainedStateCache,
  row: HeldApprovalRow,
): Promise<void> {
  if (row.status !== 'approved') return;
  const id = row.approval_id;
  if (!cache.has(approvedKey(id))) {
    const answers = await chainedEntriesOf(trx, id, APPROVAL_ANSWERS);
    if (answers.length !== 1 || answers[0]!.kind !== 'ns.approval.approved') {
      throw integrityFailure('approvals', id, 'status');
    }
    cache.add(approvedKey(id));
  }
  if (!cache.has(boundKey(id, row.bound))) {
    const expected = await boundFromDecision(trx, row.policy_decision_id, id);
    if (expected === undefined || !sameJson(row.bound, expected)) throw integrityFailure('approvals', id, 'bound');
    cache.add(boundKey(id, row.bound));
  }
  // the actor's decisions since the one that asked (the `decisions_actor` index): an approval lives minutes, so this
  // reads what the agent did in that time at most
  const spent = await trx
    .selectFrom('decisions')
    .select('policy_decision_id')
    .where('actor_entity_id', '=', row.actor_entity_id)
    .where('seq', '>', (eb) =>
      // a deleted asking decision (another forgery) reads as 0: every decision of the actor is searched then
      eb.fn.coalesce(
        eb
          .selectFrom('decisions as asked')
          .select('asked.seq')
          .where('asked.policy_decision_id', '=', row.policy_decision_id),
        eb.lit(0),
      ),
    )
    .where('approval_id', '=', id)
    .where('reason', '=', 'approved_by_principal')
    .limit(1)
    .executeTakeFirst();
  if (spent) throw integrityFailure('approvals', id, 'status');
}

/** The bound the creating decision's record gives, when that record is the one its audit entry commits to. */
async function boundFromDecision(
  trx: Transaction<Database>,
  policyDecisionId: string,
  approvalId: string,
): Promise<Record<string, unknown> | undefined> {
  const row = await trx
    .selectFrom('decisions as d')
    .innerJoin('audit_entries as e', 'e.audit_id', 'd.audit_ref')
    .select([
      'd.policy_decision_id',
      'd.request',
      'd.snapshot',
      'd.result',
      'd.decision_map',
      'd.record',
      'd.now',
      'd.engine_version',
      'd.approval_id',
      'e.entry',
    ])
    .where('d.policy_decision_id', '=', policyDecisionId)
    .executeTakeFirst();
  if (!row || row.approval_id !== approvalId) return undefined;
  const entry = parseAuditEntryText(row.entry);
  if (!entry || entry.subject_ref !== policyDecisionId) return undefined;
  let record: DecisionRecordInput;
  let digest: string;
  await preloadPolicySetTexts(trx, [row.record]);
  try {
    const parts = decisionPartsOf(row);
    digest = digestOfCanonical(parts.text ?? canonicalDecisionRecord(parts));
    record = parts;
  } catch {
    return undefined;
  }
  if (digest !== entry.record_digest) return undefined;
  const held = record.snapshot.approval?.approval_id ?? null;
  return approvalBound(record.request, approvalEffect(record.request, record.result, held));
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return canonicalJson(JSON.parse(text)) === canonicalJson(value);
  } catch {
    return false;
  }
}
