/**
 * POST /v1/bundles/verify: core's verifyBundle, answered as a signed `ns.bundle_verification.v1`. Without `jwks` the
 * bundle is judged against this service's keys (current and rotated) and its audit log's origin; with `jwks` against
 * those keys alone (a bundle of another deployment), with no origin pinned. The answer is 200 whether the bundle is
 * valid or not, and changes nothing.
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
  const result =
    jwks === undefined
      ? await verifyBundle(bundle, await ctx.keys.jwks(), { origin: await auditOrigin(ctx) })
      : await verifyBundle(bundle, jwks);
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
