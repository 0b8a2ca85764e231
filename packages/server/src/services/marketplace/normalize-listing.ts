/**
 * Checks a listing registration beyond its schema and returns it normalised: lists de-duplicated and sorted (so the
 * same offer is the same document whatever the order given), the id minted unless chosen, a connector listing tied
 * to a catalogue connector, and conformance evidence that holds (listing-evidence.ts): a report about the listing's
 * `deployment_url`, signed by the key of its publisher entity, brought inline (`conformance_report`, then stored)
 * or named (`conformance_report_id`). This service's own self-run reports are refused as evidence. Every refusal
 * names its field.
 */
import {
  canonicalJson,
  CONFORMANCE_PROFILES,
  fieldError,
  isJurisdiction,
  isLocalId,
  type ConformanceReport,
  type PublisherTier,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { bindableConnector } from '../connectors/bindable-connector.ts';
import {
  parseConformanceReportId,
  storeConformanceReport,
  storedConformanceReport,
} from '../conformance/conformance-runs.ts';
import { checkListingEvidence, normalizeDeploymentUrl } from './listing-evidence.ts';
import {
  LISTING_ID_PREFIX,
  LISTING_SCHEMA,
  type ListingKind,
  type PricingModel,
  type RegisteredListing,
} from './listing-document.ts';

export interface ListingInput {
  listing_id?: string | undefined;
  kind: ListingKind;
  title: string;
  publisher: { name: string; tier: PublisherTier; entity_id?: string | undefined };
  sectors: string[];
  regimes: string[];
  jurisdictions: string[];
  pricing_model: PricingModel;
  connector_id?: string | undefined;
  conformance_report_id?: string | undefined;
  /** a signed `ns.conformance_report.v1` of the listing's deployment, signed by the publisher entity's key */
  conformance_report?: object | undefined;
  /** the https base URL of the deployment the listing offers (what its conformance report must be about) */
  deployment_url?: string | undefined;
  declared_profiles?: string[] | undefined;
}

/** The listing as stored: the registered members plus who publishes it (entity) and where it is deployed. */
export type ListingWithEvidence = RegisteredListing & {
  publisher: RegisteredListing['publisher'] & { entity_id?: string };
  deployment_url?: string;
};

const PROFILES: ReadonlySet<string> = new Set(CONFORMANCE_PROFILES);

/** `ns:listing:<id>` (chosen, `[A-Za-z0-9._-]{1,128}`) -> the full id; throws naming `path` otherwise. */
export function parseListingId(value: string, path: string): string {
  if (!value.startsWith(LISTING_ID_PREFIX) || !isLocalId(value.slice(LISTING_ID_PREFIX.length))) {
    throw fieldError('invalid_id', path, `must be \`${LISTING_ID_PREFIX}<id>\` with <id> of \`[A-Za-z0-9._-]{1,128}\``);
  }
  return value;
}

export async function normalizeListing(
  ctx: AppContext,
  input: ListingInput,
  now: string,
): Promise<ListingWithEvidence> {
  const listingId =
    input.listing_id === undefined
      ? `${LISTING_ID_PREFIX}${ctx.newUuid()}`
      : parseListingId(input.listing_id, '/listing_id');
  input.jurisdictions.forEach((j, i) => {
    if (!isJurisdiction(j))
      throw fieldError('invalid_request', `/jurisdictions/${i}`, `\`${j}\` is not an ISO 3166-1 alpha-2 code`);
  });
  let connectorProfiles: string[] = [];
  if (input.kind === 'connector') {
    if (input.connector_id === undefined)
      throw fieldError('invalid_request', '/connector_id', 'is required for a connector listing');
    const manifest = bindableConnector(input.connector_id, '/connector_id');
    connectorProfiles = manifest.supported_profiles.filter((p) => PROFILES.has(p));
  } else if (input.connector_id !== undefined) {
    throw fieldError('invalid_request', '/connector_id', 'is allowed only for a connector listing');
  }
  (input.declared_profiles ?? []).forEach((p, i) => {
    if (!PROFILES.has(p))
      throw fieldError('invalid_request', `/declared_profiles/${i}`, `\`${p}\` is not a conformance profile`);
  });
  const deploymentUrl = input.deployment_url === undefined ? undefined : normalizeDeploymentUrl(input.deployment_url);
  if (input.deployment_url !== undefined && deploymentUrl === undefined) {
    throw fieldError(
      'invalid_request',
      '/deployment_url',
      'must be an https URL without credentials, query or fragment',
    );
  }
  const claim = { publisher_entity_id: input.publisher.entity_id ?? null, deployment_url: deploymentUrl ?? null };
  let reportId = input.conformance_report_id;
  if (input.conformance_report !== undefined) {
    reportId = await bringReport(
      ctx,
      input.conformance_report as Record<string, unknown>,
      input.conformance_report_id,
      claim,
    );
  } else if (reportId !== undefined) {
    parseConformanceReportId(reportId, '/conformance_report_id');
    const stored = await storedConformanceReport(ctx, reportId);
    if (!stored) throw fieldError('reference_not_found', '/conformance_report_id', `\`${reportId}\` does not exist`);
    const check = await checkListingEvidence(ctx, stored.report, claim);
    if (!check.valid)
      throw fieldError('reference_invalid', '/conformance_report_id', `is not evidence: ${check.reason}`);
  }
  return {
    schema_version: LISTING_SCHEMA,
    listing_id: listingId,
    kind: input.kind,
    title: input.title,
    publisher: {
      name: input.publisher.name,
      tier: input.publisher.tier,
      ...(input.publisher.entity_id === undefined ? {} : { entity_id: input.publisher.entity_id }),
    },
    sectors: sortedSet(input.sectors),
    regimes: sortedSet(input.regimes),
    jurisdictions: sortedSet(input.jurisdictions),
    pricing_model: input.pricing_model,
    connector_id: input.connector_id ?? null,
    conformance_report_id: reportId ?? null,
    ...(deploymentUrl === undefined ? {} : { deployment_url: deploymentUrl }),
    declared_profiles: sortedSet(input.declared_profiles ?? connectorProfiles),
    registered_at: now,
  };
}

/**
 * Checks an inline report as evidence, then stores it (origin `publisher`) and returns its id. Stored before the
 * listing: a listing refused afterwards leaves a verified report behind, which names no listing and counts nowhere.
 */
async function bringReport(
  ctx: AppContext,
  report: Record<string, unknown>,
  namedId: string | undefined,
  claim: { publisher_entity_id: string | null; deployment_url: string | null },
): Promise<string> {
  const check = await checkListingEvidence(ctx, report, claim);
  if (!check.valid) throw fieldError('reference_invalid', '/conformance_report', `is not evidence: ${check.reason}`);
  const id = parseConformanceReportId(report.report_id, '/conformance_report/report_id');
  if (namedId !== undefined && namedId !== id) {
    throw fieldError('invalid_request', '/conformance_report_id', 'must be the report_id of `conformance_report`');
  }
  const stored = await storedConformanceReport(ctx, id);
  if (stored) {
    if (canonicalJson(stored.report) !== canonicalJson(report)) {
      throw fieldError('conflict', '/conformance_report/report_id', 'another report is stored under this id');
    }
    return id;
  }
  await storeConformanceReport(ctx, report as unknown as ConformanceReport, claim.publisher_entity_id, 'publisher');
  return id;
}

function sortedSet(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
