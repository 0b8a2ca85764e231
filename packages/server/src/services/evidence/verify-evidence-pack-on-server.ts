/**
 * POST /v1/evidence-packs/verify: core's verifier with this service's JWKS (every instance's keys, current and
 * rotated) and this log's origin. A replay that differs from the recorded decision emits
 * `ns.decision.replay_mismatch` through the write queue (so it is chained in the audit log and delivered on the
 * events feed and to webhooks), and counts it on /metrics (`aar_replay_mismatches_total`).
 * Attacker assumption: the pack is anything at all. Only a pack whose signature verifies with one of this service's
 * keys is reported: a forged pack must not be able to write events (editing any member of a genuine pack breaks its
 * signature, so an edited pack is refused, never reported). What remains is the real case: a pack this service
 * signed, under an engine (`engine_version`) that decided what the running engine (`replay_engine_version`) does
 * not; or, with both equal, decide itself changed without a version bump, or the key signed what decide never said.
 */
import { verifyEvidencePack, type EvidenceVerificationResult } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { auditOrigin } from '../../audit/audit-origin.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { ENGINE_VERSION } from '../authorize/engine-version.ts';
import { appendEvent } from '../events/append-event.ts';

export const REPLAY_MISMATCH = 'ns.decision.replay_mismatch';

/** Replay mismatches reported by this process, per (pack engine version, replay engine version): for /metrics. */
const mismatchCounts = new WeakMap<AppContext, Map<string, { engine: string; replay: string; count: number }>>();

export function replayMismatchCounts(
  ctx: AppContext,
): ReadonlyArray<{ engine: string; replay: string; count: number }> {
  return [...(mismatchCounts.get(ctx)?.values() ?? [])];
}

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
    const engineVersion = String(pack.engine_version);
    await ctx.writer.run((trx) =>
      appendEvent(trx, ctx, {
        event_type: REPLAY_MISMATCH,
        actor_entity_id: actorOf(credential),
        principal_entity_id: typeof request.principal_entity_id === 'string' ? request.principal_entity_id : null,
        subject_ref: String(pack.policy_decision_id),
        reason_code: 'replay_mismatch',
        data: {
          policy_decision_id: String(pack.policy_decision_id),
          evidence_pack_id: evidencePackId,
          engine_version: engineVersion,
          replay_engine_version: ENGINE_VERSION,
          recorded: { decision: recorded.decision ?? null, reason: recorded.reason ?? null },
          replayed: { decision: replay.decision, reason: replay.reason },
        },
        evidence_refs: [evidencePackId],
      }),
    );
    countMismatch(ctx, engineVersion);
  }
  return result;
}

function countMismatch(ctx: AppContext, engine: string): void {
  let counts = mismatchCounts.get(ctx);
  if (!counts) mismatchCounts.set(ctx, (counts = new Map()));
  const key = `${engine}\n${ENGINE_VERSION}`;
  const entry = counts.get(key) ?? { engine, replay: ENGINE_VERSION, count: 0 };
  entry.count++;
  counts.set(key, entry);
}
