/**
 * Writes a registered listing and its facets (migration 0014). Both tables are write-once: a listing id is taken
 * once, ever. Runs inside the caller's transaction. The listing is signed by the service BEFORE it is written
 * (`signListing`), and `document` holds exactly the signed RFC 8785 bytes that every reader checks and serves
 * (listing-integrity.ts); the columns beside it restate the document for indexed search.
 */
import { canonicalJson, signDocument } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database } from '../../store/index.ts';
import type { RegisteredListing } from './listing-document.ts';
import type { SignedListing } from './listing-integrity.ts';

/** The listing as it is stored: signed now, with the instance's current key. */
export async function signListing(ctx: AppContext, listing: RegisteredListing): Promise<SignedListing> {
  return (await signDocument(listing, ctx.keys.current())) as SignedListing;
}

export async function insertListing(
  trx: Transaction<Database>,
  listing: SignedListing,
  registeredBy: string | null,
): Promise<void> {
  const { seq } = await trx
    .insertInto('listings')
    .values({
      listing_id: listing.listing_id,
      kind: listing.kind,
      title: listing.title,
      publisher_name: listing.publisher.name,
      publisher_tier: listing.publisher.tier,
      pricing_model: listing.pricing_model,
      connector_id: listing.connector_id,
      conformance_report_id: listing.conformance_report_id,
      document: canonicalJson(listing),
      search_text: searchText(listing),
      registered_at: listing.registered_at,
      registered_by: registeredBy,
    })
    .returning('seq')
    .executeTakeFirstOrThrow();
  const facets = [
    ...listing.sectors.map((value) => ({ facet: 'sector' as const, value })),
    ...listing.regimes.map((value) => ({ facet: 'regime' as const, value })),
    ...listing.jurisdictions.map((value) => ({ facet: 'jurisdiction' as const, value })),
  ];
  if (facets.length > 0) {
    await trx
      .insertInto('listing_facets')
      .values(facets.map((f) => ({ listing_seq: Number(seq), ...f })))
      .execute();
  }
}

/** What `q` matches: title and publisher name, lowercased (both dialects then compare the same way). */
export function searchText(listing: Pick<RegisteredListing, 'title' | 'publisher'>): string {
  return `${listing.title}\n${listing.publisher.name}`.toLowerCase();
}
