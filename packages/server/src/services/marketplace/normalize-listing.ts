/**
 * Checks a listing registration beyond its schema and returns it normalised: lists de-duplicated and sorted (so the
 * same offer is the same document whatever the order given), the id minted unless chosen, a connector listing tied
 * to a catalogue connector, a named conformance report that exists. Every refusal names its field.
 */
import { CONFORMANCE_PROFILES, fieldError, isJurisdiction, isLocalId, type PublisherTier } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { bindableConnector } from '../connectors/bindable-connector.ts';
import { getConformanceRun } from '../conformance/conformance-runs.ts';
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
  publisher: { name: string; tier: PublisherTier };
  sectors: string[];
  regimes: string[];
  jurisdictions: string[];
  pricing_model: PricingModel;
  connector_id?: string | undefined;
  conformance_report_id?: string | undefined;
  declared_profiles?: string[] | undefined;
}

const PROFILES: ReadonlySet<string> = new Set(CONFORMANCE_PROFILES);

/** `ns:listing:<id>` (chosen, `[A-Za-z0-9._-]{1,128}`) -> the full id; throws naming `path` otherwise. */
export function parseListingId(value: string, path: string): string {
  if (!value.startsWith(LISTING_ID_PREFIX) || !isLocalId(value.slice(LISTING_ID_PREFIX.length))) {
    throw fieldError('invalid_id', path, `must be \`${LISTING_ID_PREFIX}<id>\` with <id> of \`[A-Za-z0-9._-]{1,128}\``);
  }
  return value;
}

export async function normalizeListing(ctx: AppContext, input: ListingInput, now: string): Promise<RegisteredListing> {
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
  if (input.conformance_report_id !== undefined) {
    try {
      await getConformanceRun(ctx, input.conformance_report_id);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'not_found') {
        throw fieldError(
          'reference_not_found',
          '/conformance_report_id',
          `\`${input.conformance_report_id}\` does not exist`,
        );
      }
      if (code === 'invalid_id')
        throw fieldError('invalid_id', '/conformance_report_id', 'must be `ns:conformance_report:<uuid>`');
      throw error;
    }
  }
  return {
    schema_version: LISTING_SCHEMA,
    listing_id: listingId,
    kind: input.kind,
    title: input.title,
    publisher: { name: input.publisher.name, tier: input.publisher.tier },
    sectors: sortedSet(input.sectors),
    regimes: sortedSet(input.regimes),
    jurisdictions: sortedSet(input.jurisdictions),
    pricing_model: input.pricing_model,
    connector_id: input.connector_id ?? null,
    conformance_report_id: input.conformance_report_id ?? null,
    declared_profiles: sortedSet(input.declared_profiles ?? connectorProfiles),
    registered_at: now,
  };
}

function sortedSet(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
