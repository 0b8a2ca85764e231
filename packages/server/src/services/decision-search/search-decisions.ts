/**
 * GET /v1/decisions: a page of decision summaries, newest first, for the console's search. Reads only the indexed
 * summary columns of `decisions` (never the stored record, whose shape belongs to services/decisions), so a summary
 * costs no decompression; GET /v1/decisions/{id} has the rest.
 */
import type { Decision, ReasonCode } from '@aar/core';
import type { SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import type { DecisionFilter } from './decision-filter.ts';

export interface DecisionSummary {
  policy_decision_id: string;
  decision: Decision;
  reason: ReasonCode;
  actor_entity_id: string;
  principal_entity_id: string;
  subject: string;
  action: string;
  leaf_grant_id: string | null;
  decision_map_ref: string;
  audit_ref: string;
  evidence_refs: string[];
  outcome: string;
  created_at: string;
}

export interface DecisionSearchPage {
  items: DecisionSummary[];
  /** the seq to continue before, or null at the oldest */
  nextBeforeSeq: number | null;
}

/** Applies the filter to any query over `decisions` (the search and the statistics share it). */
export function whereFilter<O>(
  query: SelectQueryBuilder<Database, 'decisions', O>,
  filter: DecisionFilter,
): SelectQueryBuilder<Database, 'decisions', O> {
  let q = query;
  if (filter.actor_entity_id !== undefined) q = q.where('actor_entity_id', '=', filter.actor_entity_id);
  if (filter.principal_entity_id !== undefined) q = q.where('principal_entity_id', '=', filter.principal_entity_id);
  if (filter.reason !== undefined) q = q.where('reason', '=', filter.reason);
  if (filter.decision !== undefined) q = q.where('decision', '=', filter.decision);
  // created_at is always toISOString() text: comparing it as text compares instants
  if (filter.since !== undefined) q = q.where('created_at', '>=', filter.since);
  if (filter.until !== undefined) q = q.where('created_at', '<', filter.until);
  return q;
}

export async function searchDecisions(
  ctx: AppContext,
  filter: DecisionFilter,
  page: { limit: number; beforeSeq: number | undefined },
): Promise<DecisionSearchPage> {
  let query = whereFilter(
    ctx.store.db
      .selectFrom('decisions')
      .select([
        'seq',
        'policy_decision_id',
        'decision',
        'reason',
        'actor_entity_id',
        'principal_entity_id',
        'subject',
        'action',
        'leaf_grant_id',
        'decision_map_id',
        'audit_ref',
        'evidence_refs',
        'outcome',
        'created_at',
      ]),
    filter,
  )
    .orderBy('seq', 'desc')
    .limit(page.limit + 1);
  if (page.beforeSeq !== undefined) query = query.where('seq', '<', page.beforeSeq);
  const rows = await query.execute();
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return {
    items: shown.map((row) => ({
      policy_decision_id: row.policy_decision_id,
      decision: row.decision,
      // only decide's reason codes are ever written
      reason: row.reason as ReasonCode,
      actor_entity_id: row.actor_entity_id,
      principal_entity_id: row.principal_entity_id,
      subject: row.subject,
      action: row.action,
      leaf_grant_id: row.leaf_grant_id,
      decision_map_ref: row.decision_map_id,
      audit_ref: row.audit_ref,
      evidence_refs: JSON.parse(row.evidence_refs) as string[],
      outcome: row.outcome,
      created_at: row.created_at,
    })),
    nextBeforeSeq: rows.length > page.limit && last ? Number(last.seq) : null,
  };
}
