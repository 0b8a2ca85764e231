import { AarError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { ServedListing } from './listing-document.ts';
import { parseListingId } from './normalize-listing.ts';
import { registeredOf, serveListings } from './serve-listings.ts';

export async function getListing(ctx: AppContext, rawId: string): Promise<ServedListing> {
  const id = parseListingId(rawId, '/params/id');
  const row = await ctx.store.db
    .selectFrom('listings')
    .select(['listing_id', 'document'])
    .where('listing_id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `listing \`${id}\` does not exist`);
  const [served] = await serveListings(ctx, [registeredOf(row)]);
  return served!;
}
