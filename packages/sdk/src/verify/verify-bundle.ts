/**
 * core's offline proof bundle verifier (CONTRACT section 12: the ten checks in order, replay included), also over a
 * JwksSource: the same code the service's POST /v1/bundles/verify and `aar verify-bundle` run.
 */
import { verifyBundle as verifyWithKeys, type BundleVerificationResult, type VerifyBundleOptions } from '@aar/core';
import { resolveTrustedKeys, type TrustedKeySource } from './trusted-key-source.ts';

export async function verifyBundle(
  bundle: unknown,
  trusted: TrustedKeySource,
  options: VerifyBundleOptions = {},
): Promise<BundleVerificationResult> {
  return verifyWithKeys(bundle, await resolveTrustedKeys(trusted, bundle), options);
}
