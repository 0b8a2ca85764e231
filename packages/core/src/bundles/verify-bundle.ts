/**
 * Offline verification of an authority proof bundle (CONTRACT section 12): the ten checks, in their order, on the
 * bundle alone with the caller's JWKS. Pure and isomorphic (no clock: every time judged is one the bundle states),
 * so the server's POST /v1/bundles/verify, `aar verify-bundle` and the SDKs answer the same.
 * Attacker assumption: the bundle is anything at all; every check runs, none throws, each reports its own failure.
 * Keys come only from `jwks`, never from the bundle (whose delegation chain lists keys only as hints).
 */
import type { TrustedKeys } from '../signing/verify-document.ts';
import { checkAuditInclusion } from './audit-inclusion-check.ts';
import { readBundleContext, type BundleContext } from './bundle-context.ts';
import {
  BUNDLE_CHECKS,
  type BundleCheck,
  type BundleCheckName,
  type BundleVerificationResult,
  type BundleCheckOutcome,
  type VerifyBundleOptions,
} from './bundle-verification.ts';
import { checkDelegationAttenuation, checkDelegationChainSignatures } from './delegation-checks.ts';
import { checkReferencesDigest } from './references-check.ts';
import { checkReplayEqual } from './replay-check.ts';
import {
  checkBundleSignature,
  checkCheckpointSignature,
  checkDecisionMapSignature,
  checkEvidencePackSignature,
} from './signature-checks.ts';
import { checkTemporalValidity } from './temporal-check.ts';

type Check = (ctx: BundleContext, options: VerifyBundleOptions) => BundleCheckOutcome | Promise<BundleCheckOutcome>;

const CHECKS: Record<BundleCheckName, Check> = {
  bundle_signature: checkBundleSignature,
  references_digest: checkReferencesDigest,
  decision_map_signature: checkDecisionMapSignature,
  evidence_pack_signature: checkEvidencePackSignature,
  delegation_chain_signatures: checkDelegationChainSignatures,
  delegation_attenuation: checkDelegationAttenuation,
  checkpoint_signature: checkCheckpointSignature,
  audit_inclusion: checkAuditInclusion,
  replay_equal: checkReplayEqual,
  temporal_validity: checkTemporalValidity,
};

export async function verifyBundle(
  bundle: unknown,
  jwks: TrustedKeys,
  options: VerifyBundleOptions = {},
): Promise<BundleVerificationResult> {
  const ctx = await readBundleContext(bundle, jwks);
  const checks: BundleCheck[] = [];
  for (const name of BUNDLE_CHECKS) {
    let outcome: BundleCheckOutcome;
    try {
      outcome = await CHECKS[name](ctx, options);
    } catch {
      // only hostile shapes get here (throwing getters, proxies): a refusal either way
      outcome = 'the bundle cannot be read';
    }
    if (outcome === true) checks.push({ name, ok: true });
    else if (typeof outcome === 'string') checks.push({ name, ok: false, detail: outcome });
    else checks.push({ name, ok: true, detail: outcome.detail });
  }
  return { valid: checks.every((c) => c.ok), checks };
}
