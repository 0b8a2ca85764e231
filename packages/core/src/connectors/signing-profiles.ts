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

/** A signing profile as `GET /v1/conformance/profiles` publishes it beside the conformance profiles. */
export interface SigningProfileDefinition {
  profile: string;
  title: string;
  /** what a receiver that verifies it checks */
  description: string;
  /** the conformance profile whose suite covers webhooks (endpoints, SSRF, the catalogue) */
  conformance_profile: 'ns.webhooks.v1';
}

const SIGNING_PROFILE_TEXT: Record<WebhookSigningProfile, Pick<SigningProfileDefinition, 'title' | 'description'>> = {
  shared_secret: {
    title: 'Webhooks signed with a shared secret',
    description:
      'Standard Webhooks `v1`: HMAC-SHA256 over `{id}.{timestamp}.{body}` with the endpoint’s `whsec_` secret; the ' +
      'body is the envelope, itself signed by the service key.',
  },
  asymmetric: {
    title: 'Webhooks signed with the service key',
    description:
      '`v1a`: Ed25519 over `{id}.{timestamp}.{body}` with the service key that `webhook-key-id` names, checked ' +
      'against the JWKS; no shared secret.',
  },
  cose: {
    title: 'Webhooks as COSE_Sign1',
    description:
      'The body is a COSE_Sign1 message (RFC 9052, tag 18, EdDSA) over the envelope, `application/cose`, with a ' +
      '`v1a` signature over its bytes.',
  },
};

/** The three signing profiles (SPEC "Versioning" 9), the names connector manifests use in `supported_profiles`. */
export const SIGNING_PROFILE_DEFINITIONS: readonly SigningProfileDefinition[] = WEBHOOK_SIGNING_PROFILES.map(
  (profile) => ({
    profile: signingProfileId(profile),
    ...SIGNING_PROFILE_TEXT[profile],
    conformance_profile: 'ns.webhooks.v1',
  }),
);

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
