/**
 * `ns.marketplace_listing.v1` (CONTRACT section 15, docs/marketplace.md): the listing as registered (signed by the
 * service when written, stored with that signature, never changed: listing-integrity.ts) and the listing as served
 * (the registered listing exactly as stored, plus the trust score computed when read, signed per section 4).
 */
import type { DocumentSignature, PublisherTier, TrustScore } from '@aar/core';

export const LISTING_SCHEMA = 'ns.marketplace_listing.v1';
export const LISTING_ID_PREFIX = 'ns:listing:';
export const LISTING_KINDS = ['connector', 'agent', 'service'] as const;
export const PRICING_MODELS = ['free', 'usage', 'subscription', 'enterprise'] as const;
/** sector and regime vocabulary: lowercase snake_case words (`retail`, `psd3`, `eu_ai_act`) */
export const FACET_VALUE_PATTERN = '^[a-z][a-z0-9_]{1,47}$';
export const MAX_FACET_VALUES = 32;

export type ListingKind = (typeof LISTING_KINDS)[number];
export type PricingModel = (typeof PRICING_MODELS)[number];

export interface RegisteredListing {
  schema_version: typeof LISTING_SCHEMA;
  listing_id: string;
  kind: ListingKind;
  title: string;
  publisher: { name: string; tier: PublisherTier };
  sectors: string[];
  regimes: string[];
  jurisdictions: string[];
  pricing_model: PricingModel;
  connector_id: string | null;
  conformance_report_id: string | null;
  /** conformance profiles the listing claims (self-declared; a report is what proves them) */
  declared_profiles: string[];
  registered_at: string;
}

export type ServedListing = RegisteredListing & { trust_score: TrustScore; signature: DocumentSignature };
