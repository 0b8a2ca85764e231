/**
 * The authority proof bundle `ns.authority_proof_bundle.v1` (CONTRACT section 12): one decision bound to its whole
 * evidence chain, self-contained so that it verifies offline with nothing but the issuer's JWKS. Its parts are
 * listed in `references` with the SHA-256 of each part's RFC 8785 bytes and the path that serves the exact part; the
 * service signs the whole (section 4). A stored format read years later: change it additively only.
 */
import type { DecisionRequest, DecisionSnapshot, Obligation, StopCondition } from '../decide/types.ts';
import type { Decision, ReasonCode } from '../decide/reason-codes.ts';
import type { DocumentSignature } from '../signing/sign-document.ts';

export const AUTHORITY_PROOF_BUNDLE_SCHEMA = 'ns.authority_proof_bundle.v1';
export const BUNDLE_VERIFICATION_SCHEMA = 'ns.bundle_verification.v1';
export const PURPOSE_MANIFEST_SCHEMA = 'ns.purpose_manifest.v1';
export const STATE_SNAPSHOT_SCHEMA = 'ns.state_snapshot.v1';
export const RUNTIME_DECISION_SCHEMA = 'ns.runtime_decision.v1';

/** Every part, in the order `references` lists them, with the schema each part follows (GET /v1/schemas/{schema}). */
export const BUNDLE_PARTS = [
  { name: 'purpose_manifest', schema: PURPOSE_MANIFEST_SCHEMA },
  { name: 'scope_snapshot', schema: 'ns.scope_snapshot.v1' },
  { name: 'state_snapshot', schema: STATE_SNAPSHOT_SCHEMA },
  { name: 'runtime_decision', schema: RUNTIME_DECISION_SCHEMA },
  { name: 'decision_map', schema: 'ns.decision_map.v1' },
  { name: 'evidence_pack', schema: 'ns.evidence_pack.v1' },
  { name: 'delegation_chain', schema: 'ns.delegation_chain.v1' },
  { name: 'replay_proof', schema: 'ns.replay_proof.v1' },
  { name: 'checkpoint', schema: 'ns.checkpoint.v1' },
  { name: 'inclusion_proof', schema: 'ns.inclusion_proof.v1' },
  { name: 'rule_pack_refs', schema: 'ns.rule_pack_refs.v1' },
  { name: 'conformance_profiles', schema: 'ns.conformance_profiles.v1' },
] as const;

export type BundlePartName = (typeof BUNDLE_PARTS)[number]['name'];

export function isBundlePartName(value: unknown): value is BundlePartName {
  return typeof value === 'string' && BUNDLE_PARTS.some((p) => p.name === value);
}

/** Why the bundle was made: given by whoever assembled it, signed with the rest. */
export interface PurposeManifest {
  schema_version: typeof PURPOSE_MANIFEST_SCHEMA;
  policy_decision_id: string;
  purpose: string;
  /** who asked for it (given, else the credential that assembled it) */
  requested_by: string | null;
  /** a case or ticket reference, when given */
  ticket: string | null;
  requested_at: string;
}

/** Every state the decision read: decide's snapshot exactly as recorded, and the instant it was decided at. */
export interface StateSnapshot {
  schema_version: typeof STATE_SNAPSHOT_SCHEMA;
  policy_decision_id: string;
  /** the `now` decide was given */
  as_of: string;
  snapshot: DecisionSnapshot;
}

export interface RuntimeDecision {
  schema_version: typeof RUNTIME_DECISION_SCHEMA;
  policy_decision_id: string;
  /** the `now` decide was given */
  decided_at: string;
  request: DecisionRequest;
  decision: Decision;
  reason: ReasonCode;
  obligations: Obligation[];
  stop_conditions: StopCondition[];
  engine_version: string;
}

/** decide run again on the state snapshot and the request, by the assembler; a verifier runs it once more. */
export interface ReplayProof {
  engine_version: string;
  replayed: { decision: Decision; reason: ReasonCode };
  equal: boolean;
}

export interface RulePackRef {
  /** `ns:policy:<name>`: the rules that decided */
  ref: string;
  version: string;
  engine_version: string;
  /** where the service serves it */
  href: string;
}

export interface BundleReference {
  name: BundlePartName;
  schema: string;
  /** lowercase hex SHA-256 of the part's RFC 8785 bytes */
  sha256: string;
  /** `/v1/bundles/{bundle_id}/parts/{name}`: serves exactly the part */
  href: string;
}

export interface UnsignedAuthorityProofBundle {
  schema_version: typeof AUTHORITY_PROOF_BUNDLE_SCHEMA;
  /** `ns:bundle:<uuid>` */
  bundle_id: string;
  created_at: string;
  purpose_manifest: PurposeManifest;
  scope_snapshot: Record<string, unknown>;
  state_snapshot: StateSnapshot;
  runtime_decision: RuntimeDecision;
  decision_map: Record<string, unknown>;
  evidence_pack: Record<string, unknown>;
  /** null when the decision read no grant (`authority_not_found`) */
  delegation_chain: Record<string, unknown> | null;
  replay_proof: ReplayProof;
  checkpoint: Record<string, unknown>;
  inclusion_proof: Record<string, unknown>;
  rule_pack_refs: RulePackRef[];
  conformance_profiles: string[];
  references: BundleReference[];
}

export type AuthorityProofBundle = UnsignedAuthorityProofBundle & { signature: DocumentSignature };
