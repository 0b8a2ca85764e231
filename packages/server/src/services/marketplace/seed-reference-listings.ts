/**
 * Seeds the reference listings at start (runtime.ts), idempotently: only the ones missing are written, in one
 * transaction, so a new release's new connectors are listed on its first start and nothing registered is touched.
 * Several instances starting together on one PostgreSQL may race: the loser's transaction hits the unique id and
 * rolls back whole, and the winner's rows are the seed. No event and no audit entry: these listings are data of the
 * release, like the manifests they list, not an act of anyone on this deployment. Each is signed by the service when
 * written (store-listing.ts), which is what readers and `GET /v1/audit/verify` check it by.
 */
import type { AppContext } from '../../app-context.ts';
import { connectorCatalogue } from '../connectors/connector-catalogue.ts';
import { isUniqueViolation } from '../unique-violation.ts';
import { REFERENCE_ID_PREFIX, referenceListing } from './reference-listings.ts';
import { insertListing, signListing } from './store-listing.ts';

/** Returns how many listings it wrote. */
export async function seedReferenceListings(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now().toISOString();
  const wanted = connectorCatalogue()
    .filter((m) => m.status !== 'deprecated')
    .map((m) => referenceListing(m, now));
  try {
    return await ctx.store.db.transaction().execute(async (trx) => {
      const present = new Set(
        (
          await trx
            .selectFrom('listings')
            .select('listing_id')
            .where('listing_id', 'like', `${REFERENCE_ID_PREFIX}%`)
            .execute()
        ).map((r) => r.listing_id),
      );
      const missing = wanted.filter((l) => !present.has(l.listing_id));
      // signed at write like every listing (store-listing.ts): what readers check and serve
      for (const listing of missing) await insertListing(trx, await signListing(ctx, listing), null);
      return missing.length;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return 0; // another instance seeded them first
    throw error;
  }
}
