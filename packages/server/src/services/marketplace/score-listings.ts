/**
 * Gathers the trust score inputs of listings and computes their scores (core/marketplace, docs/marketplace.md).
 * Same inputs, same bytes, on every instance: the score is computed as of the current UTC hour (`computed_at`),
 * and every fact that changes with time is read as of it: deliveries in the 30 days before it, evidence age at it.
 * Facts registered later within the hour (a report, a listing) count at once; they are stored, so every instance
 * reads the same.
 */
import { CONFORMANCE_PROFILES, computeTrustScore, type TrustScore, type TrustScoreInputs } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { findConnector } from '../connectors/connector-catalogue.ts';
import { storedConformanceReport } from '../conformance/conformance-runs.ts';
import { connectorDeliveryRecords } from '../webhooks/connector-delivery-record.ts';
import type { RegisteredListing } from './listing-document.ts';
import { checkListingEvidence } from './listing-evidence.ts';
import type { ListingWithEvidence } from './normalize-listing.ts';

export const OPERATIONS_WINDOW_DAYS = 30;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const PROFILES: ReadonlySet<string> = new Set(CONFORMANCE_PROFILES);

/** The score's `as_of`: `now` rounded down to the whole UTC hour. */
export function scoreAsOf(now: Date): string {
  return new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS).toISOString();
}

/** One score per listing, in order. */
export async function scoreListings(ctx: AppContext, listings: readonly RegisteredListing[]): Promise<TrustScore[]> {
  const asOf = scoreAsOf(ctx.clock.now());
  const from = new Date(Date.parse(asOf) - OPERATIONS_WINDOW_DAYS * DAY_MS).toISOString();
  const connectorIds = listings.flatMap((l) => (l.connector_id === null ? [] : [l.connector_id]));
  const deliveries = await connectorDeliveryRecords(ctx.store.db, connectorIds, from, asOf);
  // a report feeds a score only once it holds as this listing's evidence (listing-evidence.ts), checked on every
  // read: the stored row is data, and the publisher's key or the report row may have changed since registration
  const reports = await Promise.all(listings.map(async (listing) => verifiedReport(ctx, listing)));
  return listings.map((listing, i) => {
    const report = reports[i] ?? null;
    const record = listing.connector_id === null ? undefined : deliveries.get(listing.connector_id);
    return computeTrustScore({
      as_of: asOf,
      conformance: {
        report,
        declared_profiles: listing.declared_profiles.filter((p) => PROFILES.has(p)).length,
      },
      security: listing.connector_id === null ? null : (findConnector(listing.connector_id)?.risk ?? null),
      publisher_tier: listing.publisher.tier,
      operations: {
        succeeded: record?.succeeded ?? 0,
        failed: record?.failed ?? 0,
        window_days: OPERATIONS_WINDOW_DAYS,
      },
      evidence: report
        ? { latest_at: report.finished_at, source: 'conformance_report' }
        : { latest_at: listing.registered_at, source: 'registration' },
    });
  });
}

/** The listing's report as score input, or null when it names none or the report is not evidence for it. */
async function verifiedReport(
  ctx: AppContext,
  listing: RegisteredListing,
): Promise<TrustScoreInputs['conformance']['report']> {
  if (listing.conformance_report_id === null) return null;
  const stored = await storedConformanceReport(ctx, listing.conformance_report_id);
  if (!stored) return null;
  const claimed = listing as ListingWithEvidence;
  const check = await checkListingEvidence(ctx, stored.report, {
    publisher_entity_id: claimed.publisher.entity_id ?? null,
    deployment_url: claimed.deployment_url ?? null,
  });
  if (!check.valid) return null;
  return {
    report_id: listing.conformance_report_id,
    passed: check.passed,
    failed: check.failed,
    finished_at: check.finished_at,
  };
}
