/**
 * POST /v1/bundles/verify: core's verifyBundle, answered as a signed `ns.bundle_verification.v1`. The bundle is judged
 * against this service's keys (current and rotated) and its audit log's origin; `jwks` only narrows those keys
 * (trusted-keys.ts: a key this service does not publish is refused 422, never trusted, since the answer carries our
 * signature). The answer is 200 whether the bundle is valid or not, and changes nothing.
 */
import {
  BUNDLE_VERIFICATION_SCHEMA,
  signDocument,
  verifyBundle,
  type BundleCheck,
  type DocumentSignature,
  type Jwks,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { auditOrigin } from '../../audit/audit-origin.ts';
import { narrowToOwnKeys } from './trusted-keys.ts';

export interface BundleVerification {
  schema_version: typeof BUNDLE_VERIFICATION_SCHEMA;
  /** the bundle's id as it states it; null when it states none */
  bundle_id: string | null;
  valid: boolean;
  checks: BundleCheck[];
  verified_at: string;
  signature: DocumentSignature;
}

export async function verifyBundleOnServer(
  ctx: AppContext,
  bundle: unknown,
  jwks: Jwks | undefined,
): Promise<BundleVerification> {
  const own = (await ctx.keys.jwks()) as Jwks;
  const trusted = jwks === undefined ? own : narrowToOwnKeys(own, jwks);
  const result = await verifyBundle(bundle, trusted, { origin: await auditOrigin(ctx) });
  const id = typeof bundle === 'object' && bundle !== null ? (bundle as Record<string, unknown>).bundle_id : undefined;
  return signDocument(
    {
      schema_version: BUNDLE_VERIFICATION_SCHEMA,
      bundle_id: typeof id === 'string' ? id.slice(0, 256) : null,
      valid: result.valid,
      checks: result.checks,
      verified_at: ctx.clock.now().toISOString(),
    },
    ctx.keys.current(),
  ) as Promise<BundleVerification>;
}
