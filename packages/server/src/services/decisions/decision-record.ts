import { AarError, parseMintedId, type DecisionRequest, type DecisionResult, type DecisionSnapshot } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { requirePrincipalAccess } from '../../http/authenticate.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { DecisionOutcome } from '../../store/index.ts';
import { preloadPolicySetTexts } from './policy-set-texts.ts';
import { decisionMapOf, decisionPartsOf } from './stored-decision.ts';

/** GET /v1/decisions/{id}: the recorded decision with everything needed to replay it. */
export interface DecisionRecord {
  policy_decision_id: string;
  decision: DecisionResult['decision'];
  reason: DecisionResult['reason'];
  obligations: DecisionResult['obligations'];
  stop_conditions: DecisionResult['stop_conditions'];
  diagnostics: DecisionResult['diagnostics'];
  reservation: DecisionResult['reservation'] | null;
  outcome: DecisionOutcome;
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  now: string;
  engine_version: string;
  decision_map_ref: string;
  audit_ref: string;
  evidence_refs: string[];
  approval_id: string | null;
  created_at: string;
}

export async function getDecision(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
): Promise<DecisionRecord> {
  const id = parseMintedId('decision', rawId, '/params/id');
  const row = await ctx.store.db
    .selectFrom('decisions')
    .selectAll()
    .where('policy_decision_id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `decision \`${id}\` does not exist`);
  if (credential?.role === 'principal') requirePrincipalAccess(credential, row.principal_entity_id);
  await preloadPolicySetTexts(ctx.store.db, [row.record]);
  const parts = decisionPartsOf(row);
  const result = parts.result;
  return {
    policy_decision_id: row.policy_decision_id,
    decision: row.decision,
    reason: result.reason,
    obligations: result.obligations,
    stop_conditions: result.stop_conditions,
    diagnostics: result.diagnostics,
    reservation: result.reservation ?? null,
    outcome: row.outcome,
    request: parts.request,
    snapshot: parts.snapshot,
    now: row.now,
    engine_version: row.engine_version,
    decision_map_ref: row.decision_map_id,
    audit_ref: row.audit_ref,
    evidence_refs: JSON.parse(row.evidence_refs) as string[],
    approval_id: row.approval_id,
    created_at: row.created_at,
  };
}

export async function getDecisionMap(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
): Promise<Record<string, unknown>> {
  const id = parseMintedId('decision_map', rawId, '/params/id');
  const row = await ctx.store.db
    .selectFrom('decisions')
    .select(['decision_map', 'record', 'principal_entity_id'])
    .where('decision_map_id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `decision map \`${id}\` does not exist`);
  if (credential?.role === 'principal') requirePrincipalAccess(credential, row.principal_entity_id);
  return decisionMapOf(row);
}
