/**
 * Hand-written shapes of the routes added after the last `npm run sdk:generate` (proof bundles, JSON Schemas,
 * compliance, self-audit, certification, conformance, connectors, listings, decision search, tokens/self), as their
 * route schemas in packages/server/src/routes/ declare them. Names avoid the generator's `<Operation>Body|Query|
 * Response|Params`, so the generated types can land beside them without an ambiguous re-export. Documents the
 * service signs and that may grow members (CONTRACT: changed additively only) keep an index signature.
 */
import type { BUNDLE_PARTS, BundleCheck, DocumentSignature, Jwks } from '@aar/core';

/** A signed `ns.*.v1` document whose members this SDK does not fix. */
export type SignedDocument = Record<string, unknown> & { signature: DocumentSignature };

export type BundlePartName = (typeof BUNDLE_PARTS)[number]['name'];

/** POST /v1/bundles/assemble */
export interface BundleAssembly {
  /** `ns:decision:<uuid>` */
  policy_decision_id: string;
  purpose?: { purpose: string; requested_by?: string; ticket?: string };
}

/** POST /v1/bundles/verify: judged against `jwks` when given, else the service's own keys and audit log */
export interface BundleVerificationRequest {
  bundle: unknown;
  jwks?: Jwks;
}

/** The service's signed `ns.bundle_verification.v1`: the same ten checks as the offline verifyBundle. */
export interface SignedBundleVerification {
  schema_version: 'ns.bundle_verification.v1';
  bundle_id: string | null;
  valid: boolean;
  checks: BundleCheck[];
  verified_at: string;
  signature: DocumentSignature;
}

/** GET /v1/schemas */
export interface SchemaCatalogueEntry {
  name: string;
  /** the schema's `$id` */
  id: string;
  title: string;
  description: string;
  href: string;
}

/** POST /v1/compliance/projections: the packs named, or those of the decisions made in [`from`, `to`) */
export interface ComplianceProjectionRequest {
  framework: string;
  evidence_pack_ids?: string[];
  from?: string;
  to?: string;
}

export interface ComplianceProjectionOptions {
  /** `json` (default): the signed `ns.compliance_projection.v1`; `oscal`: an OSCAL 1.1 `assessment-results` */
  format?: 'json' | 'oscal';
}

/** POST /v1/certification/attestations (preview) */
export interface AttestationRequest {
  /** `ns:conformance_report:<uuid>` of a report that passed */
  conformance_report_id: string;
  statement?: string;
}

/** RFC 7515 flattened JSON serialisation */
export interface FlattenedJws {
  protected: string;
  payload: string;
  signature: string;
}

export interface CertificationAttestation {
  attestation_id: string;
  preview: true;
  conformance_report_id: string;
  created_at: string;
  claims: Record<string, unknown>;
  jws: { compact: string; json: FlattenedJws };
}

export interface AttestationVerification {
  valid: boolean;
  attestation_id: string | null;
  checks: {
    name: 'signature' | 'key_valid_at_issue' | 'claims' | 'conformance_report' | 'recorded';
    ok: boolean;
    detail?: string;
  }[];
}

export interface ConformanceProfileInfo {
  profile: string;
  title: string;
  description: string;
  named_in_spec: boolean;
  /** fixtures of this profile in the installed kit */
  fixtures: number;
}

export interface ConformanceFixtureInfo {
  fixture_id: string;
  profile: string;
  title: string;
  description?: string;
  world?: string;
  steps: number;
  file: string;
  fixture: Record<string, unknown>;
}

/** `POST /v1/conformance/runs/{id}/retire`: how many of each kind this call retired; `failed` are left for later. */
export interface ConformanceRunRetirement {
  run_id: string;
  retired: Record<'webhook_endpoint' | 'token' | 'grant' | 'entity' | 'listing' | 'card_token' | 'merchant', number>;
  failed: number;
}

export interface ConnectorFilters {
  family?: string;
  connector_type?: string;
  status?: string;
  profile?: string;
}

/** POST /v1/listings (admin; write-once) */
export interface ListingRegistration {
  listing_id?: string;
  kind: 'connector' | 'agent' | 'service';
  title: string;
  publisher: { name: string; tier: 'community' | 'verified' | 'certified' };
  sectors: string[];
  regimes: string[];
  jurisdictions: string[];
  pricing_model: 'free' | 'usage' | 'subscription' | 'enterprise';
  connector_id?: string;
  conformance_report_id?: string;
  declared_profiles?: string[];
}

export interface TrustScoreComponent {
  name: 'conformance' | 'security_posture' | 'publisher_tier' | 'operational_record' | 'evidence_freshness';
  weight: number;
  value: number;
  inputs: Record<string, unknown>;
  explanation: string;
}

/** A signed `ns.marketplace_listing.v1` with its trust score as of the current UTC hour. */
export interface MarketplaceListing {
  schema_version: 'ns.marketplace_listing.v1';
  listing_id: string;
  kind: ListingRegistration['kind'];
  title: string;
  publisher: ListingRegistration['publisher'];
  sectors: string[];
  regimes: string[];
  jurisdictions: string[];
  pricing_model: ListingRegistration['pricing_model'];
  connector_id: string | null;
  conformance_report_id: string | null;
  declared_profiles: string[];
  registered_at: string;
  trust_score: { score: number; components: TrustScoreComponent[]; computed_at: string; method_version: string };
  signature: DocumentSignature;
}

/** With `min_score` a page may hold fewer than `limit` listings, even none: follow `next_cursor` until null. */
export interface ListingSearchFilters {
  sector?: string;
  regime?: string;
  jurisdiction?: string;
  pricing_model?: string;
  publisher_tier?: string;
  q?: string;
  min_score?: number | string;
  limit?: number | string;
  cursor?: string;
}

export interface DecisionSearchFilters {
  actor_entity_id?: string;
  principal_entity_id?: string;
  reason?: string;
  decision?: string;
  /** ISO 8601 instant with a zone: decisions at or after it */
  since?: string;
  /** decisions before it */
  until?: string;
  limit?: number | string;
  cursor?: string;
}

export interface DecisionStatsFilters extends Omit<DecisionSearchFilters, 'limit' | 'cursor'> {
  /** default `day` */
  bucket?: 'hour' | 'day';
}

export interface DecisionSummary {
  policy_decision_id: string;
  decision: string;
  reason: string;
  actor_entity_id: string;
  principal_entity_id: string;
  subject: string;
  action: string;
  leaf_grant_id: string | null;
  decision_map_ref: string;
  audit_ref: string;
  evidence_refs: string[];
  outcome: string;
  created_at: string;
}

export interface DecisionStatistics {
  total: number;
  by_reason: { reason: string; decision: string; count: number }[];
  over_time: { start: string; allow_with_constraints: number; require_approval: number; deny: number }[];
}

/** GET /v1/tokens/self: never a secret */
export interface OwnCredential {
  token_id: string;
  role: 'admin' | 'runtime' | 'principal' | 'auditor';
  principal_entity_id: string | null;
}

/** A page of a cursor list (`next_cursor` null on the last). */
export interface ItemPage<T> {
  items: T[];
  next_cursor: string | null;
}
