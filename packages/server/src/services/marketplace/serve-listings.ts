/**
 * Listings as served: the registered document, its trust score computed now (score-listings.ts), signed with the
 * instance's current key (CONTRACT section 4). Ed25519 is deterministic, so one key signs one listing's bytes the
 * same way every time; instances with other keys sign the same bytes, and the JWKS publishes every instance's key.
 */
import { signDocument } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { RegisteredListing, ServedListing } from './listing-document.ts';
import { scoreListings } from './score-listings.ts';

export async function serveListings(ctx: AppContext, listings: readonly RegisteredListing[]): Promise<ServedListing[]> {
  const scores = await scoreListings(ctx, listings);
  const signer = ctx.keys.current();
  return Promise.all(
    listings.map(
      (listing, i) => signDocument({ ...listing, trust_score: scores[i]! }, signer) as Promise<ServedListing>,
    ),
  );
}

export function registeredOf(row: { document: string }): RegisteredListing {
  return JSON.parse(row.document) as RegisteredListing;
}
