/**
 * Which webhook signing profiles (CONTRACT section 9: `shared_secret`, `asymmetric`, `cose`) a connector can verify.
 * The manifest has no field of its own for this (its fields are the spec's, exactly), so a connector names them in
 * `supported_profiles` as `ns.webhooks.<profile>.v1`, beside the conformance profiles. A connector whose
 * `risk.requires_signature_verification` is true verifies every delivery, so it may only receive a profile it names.
 */
import type { ConnectorManifest } from './connector-manifest.ts';

export const WEBHOOK_SIGNING_PROFILES = ['shared_secret', 'asymmetric', 'cose'] as const;
export type WebhookSigningProfile = (typeof WEBHOOK_SIGNING_PROFILES)[number];

export function signingProfileId(profile: WebhookSigningProfile): string {
  return `ns.webhooks.${profile}.v1`;
}

export const SIGNING_PROFILE_IDS: readonly string[] = WEBHOOK_SIGNING_PROFILES.map(signingProfileId);

/** The signing profiles the manifest names, in the order of WEBHOOK_SIGNING_PROFILES. */
export function signingProfilesOf(manifest: Pick<ConnectorManifest, 'supported_profiles'>): WebhookSigningProfile[] {
  return WEBHOOK_SIGNING_PROFILES.filter((p) => manifest.supported_profiles.includes(signingProfileId(p)));
}

/** Whether an endpoint of `profile` may be bound to this connector. */
export function acceptsSigningProfile(
  manifest: Pick<ConnectorManifest, 'supported_profiles' | 'risk'>,
  profile: WebhookSigningProfile,
): boolean {
  if (!manifest.risk.requires_signature_verification) return true;
  return manifest.supported_profiles.includes(signingProfileId(profile));
}
