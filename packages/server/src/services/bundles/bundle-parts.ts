/**
 * The parts of a bundle, each read through the service of the capability that owns it (evidence pack, grant chain,
 * scope, audit proofs and checkpoints), never through their tables. The decision's facts come from its evidence pack
 * (the signed pack the audit chain commits to): the runtime decision, the state snapshot and the replay are derived
 * from it, so they cannot disagree with what the chain holds.
 */
import {
  AarError,
  decidingChainOf,
  parseAuditEntryText,
  replayDecision,
  RUNTIME_DECISION_SCHEMA,
  STATE_SNAPSHOT_SCHEMA,
  type BundlePartName,
  type EvidencePack,
  type RulePackRef,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { proveInclusion } from '../../audit/audit-proofs.ts';
import { checkpointCovering } from '../../audit/checkpoints.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { getDecision } from '../decisions/decision-record.ts';
import { getEvidencePack } from '../evidence/get-evidence-pack.ts';
import { getGrantChain } from '../grants/get-grant-chain.ts';
import { getScope } from '../references/get-scope.ts';

export type PartsWithoutPurpose = Omit<Record<BundlePartName, unknown>, 'purpose_manifest'>;

/** Profiles whose evidence a bundle carries (CONTRACT section 14): the delegation one only when it has a chain. */
function profilesOf(hasChain: boolean): string[] {
  return [
    'ns.core.v1',
    'ns.payment_authority.v1',
    'ns.agent_purchasing.v1',
    'ns.evidence.v1',
    ...(hasChain ? ['ns.delegation.v1'] : []),
    'ns.audit_chain.v1',
    'ns.bundles.v1',
  ];
}

export async function readBundleParts(
  ctx: AppContext,
  credential: Credential | null,
  policyDecisionId: string,
): Promise<PartsWithoutPurpose> {
  // getDecision enforces who may read the decision (a principal: its own only) and answers 404
  const decision = await getDecision(ctx, credential, policyDecisionId);
  const packId = decision.evidence_refs[0];
  if (packId === undefined) throw new AarError('internal', `decision \`${policyDecisionId}\` has no evidence pack`);
  const pack = JSON.parse(await getEvidencePack(ctx, credential, packId)) as EvidencePack;

  const chainIds = decidingChainOf(pack as unknown as Record<string, unknown>);
  if (chainIds === undefined) throw new AarError('internal', `the pack of \`${policyDecisionId}\` names no chain`);
  const leaf = chainIds[chainIds.length - 1];
  const chain = leaf === undefined ? null : await getGrantChain(ctx, credential, leaf);
  const scopeId = leaf === undefined ? 'ns:scope:none' : `ns:scope:${leaf.slice('ns:authority:grant:'.length)}`;
  const scope = await getScope(ctx, credential, scopeId);

  const entry = parseAuditEntryText(pack.audit_entry);
  if (entry === undefined) throw new AarError('internal', `the pack of \`${policyDecisionId}\` has no audit entry`);
  // the latest checkpoint covering the entry: at least the pack's own, often a later one
  const checkpoint = await checkpointCovering(ctx, entry.index);
  const inclusionProof = await proveInclusion(ctx.store.db, entry.index, checkpoint.size, checkpoint.size);

  const replay = replayDecision(pack.request, pack.snapshot, pack.now, pack.decision, pack.engine_version);
  const policy = pack.snapshot.policy;
  const rulePacks: RulePackRef[] = [
    {
      ref: policy.policy_id,
      version: policy.version,
      engine_version: pack.engine_version,
      href: `/v1/policies/${policy.policy_id}`,
    },
  ];
  return {
    scope_snapshot: scope,
    state_snapshot: {
      schema_version: STATE_SNAPSHOT_SCHEMA,
      policy_decision_id: pack.policy_decision_id,
      as_of: pack.now,
      snapshot: pack.snapshot,
    },
    runtime_decision: {
      schema_version: RUNTIME_DECISION_SCHEMA,
      policy_decision_id: pack.policy_decision_id,
      decided_at: pack.now,
      request: pack.request,
      decision: pack.decision.decision,
      reason: pack.decision.reason,
      obligations: pack.decision.obligations,
      stop_conditions: pack.decision.stop_conditions,
      engine_version: pack.engine_version,
    },
    decision_map: pack.decision_map,
    evidence_pack: pack,
    delegation_chain: chain,
    replay_proof: {
      engine_version: pack.engine_version,
      replayed: { decision: replay.decision, reason: replay.reason },
      equal: replay.matches,
    },
    checkpoint,
    inclusion_proof: inclusionProof,
    rule_pack_refs: rulePacks,
    conformance_profiles: profilesOf(chain !== null),
  };
}
