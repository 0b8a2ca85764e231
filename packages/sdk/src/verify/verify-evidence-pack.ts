/**
 * core's offline evidence-pack verifier with replay (every check reported; `valid` only when all pass, the decision
 * re-derived by the same `decide` the service runs), also over a JwksSource.
 */
import {
  verifyEvidencePack as verifyWithKeys,
  type EvidenceVerificationResult,
  type VerifyEvidencePackOptions,
} from '@aar/core';
import { resolveTrustedKeys, type TrustedKeySource } from './trusted-key-source.ts';

export async function verifyEvidencePack(
  pack: unknown,
  trusted: TrustedKeySource,
  options: VerifyEvidencePackOptions = {},
): Promise<EvidenceVerificationResult> {
  return verifyWithKeys(pack, await resolveTrustedKeys(trusted, pack), options);
}
