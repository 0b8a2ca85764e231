/**
 * POST /v1/evidence-packs/verify: core's verifier with this service's JWKS (every instance's keys, current and
 * rotated) and this log's origin. A replay that differs from the recorded decision emits
 * `ns.decision.replay_mismatch` through the write queue, but only for a pack this service really signed: a forged
 * pack must not be able to write events.
 */
import { verifyEvidencePack, type EvidenceVerificationResult } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { auditOrigin } from '../../audit/audit-origin.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';

export async function verifyEvidencePackOnServer(
  ctx: AppContext,
  credential: Credential | null,
  pack: Record<string, unknown>,
): Promise<EvidenceVerificationResult> {
  const result = await verifyEvidencePack(pack, await ctx.keys.jwks(), { origin: await auditOrigin(ctx) });
  const authentic = result.checks.some((c) => c.check === 'pack_signature' && c.valid);
  const replay = result.replay_decision;
  if (authentic && replay && !replay.matches) {
    const recorded = (pack.decision ?? {}) as Record<string, unknown>;
    const request = (pack.request ?? {}) as Record<string, unknown>;
    const evidencePackId = String(pack.evidence_pack_id);
    await ctx.writer.run((trx) =>
      appendEvent(trx, ctx, {
        event_type: 'ns.decision.replay_mismatch',
        actor_entity_id: actorOf(credential),
        principal_entity_id: typeof request.principal_entity_id === 'string' ? request.principal_entity_id : null,
        subject_ref: String(pack.policy_decision_id),
        reason_code: 'replay_mismatch',
        data: {
          policy_decision_id: String(pack.policy_decision_id),
          evidence_pack_id: evidencePackId,
          engine_version: String(pack.engine_version),
          recorded: { decision: recorded.decision ?? null, reason: recorded.reason ?? null },
          replayed: { decision: replay.decision, reason: replay.reason },
        },
        evidence_refs: [evidencePackId],
      }),
    );
  }
  return result;
}
