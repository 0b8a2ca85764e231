/**
 * One search per kind, each answering at most `limit` items (newest first for records, registration order for
 * listings) and whether more matched. Each item is exactly what the caller is shown for that kind:
 * - decisions: the summary `GET /v1/decisions` lists;
 * - evidence packs: the pack's id, its decision, and `pack_digest` (the `sha-256:` of the stored signed pack's bytes,
 *   null while it has not been assembled yet: `GET /v1/evidence-packs/{id}` assembles it);
 * - listings: the signed listing with its trust score, as `GET /v1/listings/search` serves it.
 * The text `query` matches case-insensitively as a substring: of a decision's id, reason, subject, action and agent;
 * of a listing's title or publisher. Memory records are searched in search-memory.ts.
 */
import type { ReasonCode } from '@aar/core';
import { createHash } from 'node:crypto';
import { sql, type SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import type { DecisionSummary } from '../decision-search/search-decisions.ts';
import { searchListings } from '../marketplace/search-listings.ts';
import type { SearchPlan } from './search-request.ts';

export interface KindAnswer {
  items: Array<{ id: string; item: Record<string, unknown> }>;
  more: boolean;
}

export interface EvidencePackItem {
  evidence_pack_id: string;
  policy_decision_id: string;
  principal_entity_id: string;
  actor_entity_id: string;
  decision: string;
  reason: string;
  created_at: string;
  pack_digest: string | null;
}

const DECISION_COLUMNS = [
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
] as const;

function whereDecisions<O>(
  query: SelectQueryBuilder<Database, 'decisions', O>,
  plan: SearchPlan,
): SelectQueryBuilder<Database, 'decisions', O> {
  let q = query;
  if (plan.principal_entity_id !== undefined) q = q.where('principal_entity_id', '=', plan.principal_entity_id);
  if (plan.actor_entity_id !== undefined) q = q.where('actor_entity_id', '=', plan.actor_entity_id);
  if (plan.reason !== undefined) q = q.where('reason', '=', plan.reason);
  if (plan.decision !== undefined) q = q.where('decision', '=', plan.decision);
  if (plan.since !== undefined) q = q.where('created_at', '>=', plan.since);
  if (plan.until !== undefined) q = q.where('created_at', '<', plan.until);
  if (plan.pattern !== undefined) {
    const text = sql<string>`lower(policy_decision_id || ' ' || reason || ' ' || subject || ' ' || action || ' ' || actor_entity_id)`;
    q = q.where(sql<boolean>`${text} like ${plan.pattern} escape '\\'`);
  }
  return q;
}

async function decisionRows(ctx: AppContext, plan: SearchPlan) {
  const rows = await whereDecisions(ctx.store.db.selectFrom('decisions').select([...DECISION_COLUMNS]), plan)
    .orderBy('seq', 'desc')
    .limit(plan.limit + 1)
    .execute();
  return { rows: rows.slice(0, plan.limit), more: rows.length > plan.limit };
}

export async function searchDecisionSummaries(ctx: AppContext, plan: SearchPlan): Promise<KindAnswer> {
  const { rows, more } = await decisionRows(ctx, plan);
  return {
    more,
    items: rows.map((row) => {
      const summary: DecisionSummary = {
        policy_decision_id: row.policy_decision_id,
        decision: row.decision,
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
      };
      return { id: row.policy_decision_id, item: { ...summary } };
    }),
  };
}

export async function searchEvidencePacks(ctx: AppContext, plan: SearchPlan): Promise<KindAnswer> {
  const { rows, more } = await decisionRows(ctx, plan);
  const ids = rows.map((r) => (JSON.parse(r.evidence_refs) as string[])[0]).filter((id) => typeof id === 'string');
  const stored = ids.length
    ? await ctx.store.db
        .selectFrom('evidence_packs')
        .select(['evidence_pack_id', 'document'])
        .where('evidence_pack_id', 'in', ids)
        .execute()
    : [];
  const digestOf = new Map(stored.map((s) => [s.evidence_pack_id, textDigest(s.document)]));
  const items: KindAnswer['items'] = [];
  for (const row of rows) {
    const id = (JSON.parse(row.evidence_refs) as string[])[0];
    if (typeof id !== 'string') continue;
    const item: EvidencePackItem = {
      evidence_pack_id: id,
      policy_decision_id: row.policy_decision_id,
      principal_entity_id: row.principal_entity_id,
      actor_entity_id: row.actor_entity_id,
      decision: row.decision,
      reason: row.reason,
      created_at: row.created_at,
      pack_digest: digestOf.get(id) ?? null,
    };
    items.push({ id, item: { ...item } });
  }
  return { items, more };
}

export async function searchListingItems(ctx: AppContext, plan: SearchPlan, query?: string): Promise<KindAnswer> {
  const page = await searchListings(ctx, { q: query, limit: plan.limit, afterSeq: 0 });
  return {
    items: page.items.map((listing) => ({
      id: listing.listing_id,
      item: listing as unknown as Record<string, unknown>,
    })),
    more: page.next_cursor !== null,
  };
}

/** `sha-256:` + base64url of SHA-256 of `text`'s UTF-8 bytes. */
export function textDigest(text: string): string {
  return `sha-256:${createHash('sha256').update(text, 'utf8').digest('base64url')}`;
}
