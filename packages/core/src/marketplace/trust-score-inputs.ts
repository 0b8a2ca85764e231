/**
 * The inputs of a listing's trust score (CONTRACT section 15, docs/marketplace.md): every fact the score reads,
 * gathered by the server before the pure computation. Counts are non-negative integers, times ISO 8601 UTC.
 */
import type { ConnectorRisk } from '../connectors/connector-manifest.ts';

export const PUBLISHER_TIERS = ['community', 'verified', 'certified'] as const;
export type PublisherTier = (typeof PUBLISHER_TIERS)[number];

export interface TrustScoreInputs {
  /** the instant the score is computed as of: its `computed_at` (the server uses the current UTC hour) */
  as_of: string;
  conformance: {
    /** the referenced conformance report, when the listing names one */
    report: { report_id: string; passed: number; failed: number; finished_at: string } | null;
    /** how many conformance profiles the listing declares (self-declared, without a report) */
    declared_profiles: number;
  };
  /** the risk block of the listing's connector manifest; null when the listing has no connector */
  security: ConnectorRisk | null;
  publisher_tier: PublisherTier;
  operations: {
    /** webhook delivery attempts to endpoints bound to the listing's connector in the window before `as_of` */
    succeeded: number;
    failed: number;
    window_days: number;
  };
  evidence: {
    /** the newest evidence about the listing: its report's `finished_at`, else when it was registered */
    latest_at: string;
    source: 'conformance_report' | 'registration';
  };
}
