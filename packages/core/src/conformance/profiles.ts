/**
 * The ten conformance profiles (CONTRACT section 14): the spec's five and ours. A profile is a named set of fixtures
 * a deployment passes to claim it; the list is public contract (a new profile is a minor version).
 */

/** The ten profile ids, in the contract's order: the one list the kit, connectors and listings share. */
export const CONFORMANCE_PROFILES = [
  'ns.core.v1',
  'ns.payment_authority.v1',
  'ns.agent_purchasing.v1',
  'ns.webhooks.v1',
  'ns.evidence.v1',
  'ns.delegation.v1',
  'ns.audit_chain.v1',
  'ns.bundles.v1',
  'ns.compliance.v1',
  'ns.marketplace.v1',
] as const;
export type ConformanceProfileId = (typeof CONFORMANCE_PROFILES)[number];

export interface ConformanceProfile {
  profile: ConformanceProfileId;
  title: string;
  /** what a deployment that passes it has shown */
  description: string;
  /** a profile the specification itself names (the other five are this project's) */
  named_in_spec: boolean;
}

export const CONFORMANCE_PROFILE_DEFINITIONS: readonly ConformanceProfile[] = [
  {
    profile: 'ns.core.v1',
    title: 'Core',
    description:
      'Authentication, RFC 9457 problem documents, idempotency keys, identifiers, the JWKS and the version header.',
    named_in_spec: true,
  },
  {
    profile: 'ns.payment_authority.v1',
    title: 'Payment authority',
    description: 'Every authorize reason code, in check order, with the signed decision map and the recorded decision.',
    named_in_spec: true,
  },
  {
    profile: 'ns.agent_purchasing.v1',
    title: 'Agent purchasing',
    description:
      'The purchase stories of an agent: approvals round trip, daily limits, outcomes and the signed payload.',
    named_in_spec: true,
  },
  {
    profile: 'ns.webhooks.v1',
    title: 'Webhooks',
    description: 'Endpoint registration, SSRF refusals and the event type catalogue.',
    named_in_spec: true,
  },
  {
    profile: 'ns.evidence.v1',
    title: 'Evidence',
    description:
      'Evidence packs that verify offline against the JWKS, with their replay, inclusion proof and checkpoint.',
    named_in_spec: true,
  },
  {
    profile: 'ns.delegation.v1',
    title: 'Delegation',
    description: 'Attenuation of every scope field, delegation depth, signed chains and the revocation cascade.',
    named_in_spec: false,
  },
  {
    profile: 'ns.audit_chain.v1',
    title: 'Audit chain',
    description: 'Signed checkpoints, inclusion and consistency proofs verified with RFC 9162, and chain verification.',
    named_in_spec: false,
  },
  {
    profile: 'ns.bundles.v1',
    title: 'Proof bundles',
    description: 'Authority proof bundles that bind a decision to its evidence chain and verify offline.',
    named_in_spec: false,
  },
  {
    profile: 'ns.compliance.v1',
    title: 'Compliance',
    description: 'Framework catalogues and signed compliance projections over evidence packs.',
    named_in_spec: false,
  },
  {
    profile: 'ns.marketplace.v1',
    title: 'Marketplace',
    description: 'The connector catalogue and signed listings with a deterministic trust score.',
    named_in_spec: false,
  },
];

export const CONFORMANCE_PROFILE_IDS: readonly string[] = CONFORMANCE_PROFILES;

export function isConformanceProfile(value: unknown): value is string {
  return typeof value === 'string' && CONFORMANCE_PROFILE_IDS.includes(value);
}

/**
 * PREVIEW profiles (SPEC "Rules" 6: a preview profile carries no badge): fixtures of preview operations
 * (`x-preview: true`, CONTRACT section 22). They are NOT among the ten: a run without `profiles` never includes them,
 * listings and trust scores never count them, and certification never attests them. A preview profile runs only when
 * named, and alone (never in the same run as a stable profile), so a report is either wholly preview or not at all.
 */
export const CONFORMANCE_PREVIEW_PROFILES = ['ns.preview.v1_1'] as const;
export type ConformancePreviewProfileId = (typeof CONFORMANCE_PREVIEW_PROFILES)[number];
export const CONFORMANCE_PREVIEW_PROFILE_IDS: readonly string[] = CONFORMANCE_PREVIEW_PROFILES;

export interface ConformancePreviewProfile {
  profile: ConformancePreviewProfileId;
  title: string;
  description: string;
  preview: true;
}

export const CONFORMANCE_PREVIEW_PROFILE_DEFINITIONS: readonly ConformancePreviewProfile[] = [
  {
    profile: 'ns.preview.v1_1',
    title: 'v1.1 preview set (preview, no badge)',
    description:
      'The v1.1 preview operations that hold on every deployment whatever its AAR_OPT_IN: the signed authority ' +
      'graph and blast radius, payload artefacts, agent metadata binding, and opt-in routes that answer their ' +
      'document or 403. Preview: may change incompatibly; passing it earns no certification.',
    preview: true,
  },
];

export function isPreviewConformanceProfile(value: unknown): value is ConformancePreviewProfileId {
  return typeof value === 'string' && CONFORMANCE_PREVIEW_PROFILE_IDS.includes(value);
}

/** Every profile a fixture may belong to: the ten, then the preview profiles (the canonical report order). */
export const KIT_PROFILE_IDS: readonly string[] = [...CONFORMANCE_PROFILES, ...CONFORMANCE_PREVIEW_PROFILES];

export function isKitProfile(value: unknown): value is string {
  return typeof value === 'string' && KIT_PROFILE_IDS.includes(value);
}
