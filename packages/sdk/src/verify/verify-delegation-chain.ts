/**
 * core's offline delegation-chain verifier (`GET /v1/grants/{id}/chain`: every link's signature and attenuation,
 * the delegators' consent, states as of `now`), also over a JwksSource. `now` defaults to the system clock.
 */
import {
  verifyDelegationChain as verifyWithKeys,
  type VerifyDelegationChainOptions,
  type VerifyDelegationChainResult,
} from '@aar/core';
import { resolveTrustedKeys, type TrustedKeySource } from './trusted-key-source.ts';

export async function verifyDelegationChain(
  chain: unknown,
  trusted: TrustedKeySource,
  now: string = new Date().toISOString(),
  options: VerifyDelegationChainOptions = {},
): Promise<VerifyDelegationChainResult> {
  return verifyWithKeys(chain, await resolveTrustedKeys(trusted, chain), now, options);
}
