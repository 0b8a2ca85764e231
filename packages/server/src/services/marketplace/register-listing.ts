import { AarError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { listingDocumentDigest } from './listing-integrity.ts';
import { duplicateAsConflict } from '../unique-violation.ts';
import type { ServedListing } from './listing-document.ts';
import { normalizeListing, type ListingInput } from './normalize-listing.ts';
import { serveListings } from './serve-listings.ts';
import { insertListing, signListing } from './store-listing.ts';

/**
 * `POST /v1/listings`: registers a listing, once (write-once: a changed offer is a new listing), signed by the service
 * before it is stored, with its `ns.listing.registered` event in the same transaction: the event's `document_digest`
 * commits the audit chain to the stored bytes (audit/record-checks/check-listings.ts). Answered as served: scored and
 * signed.
 */
export async function registerListing(
  ctx: AppContext,
  credential: Credential | null,
  input: ListingInput,
): Promise<ServedListing> {
  const listing = await signListing(ctx, await normalizeListing(ctx, input, ctx.clock.now().toISOString()));
  try {
    await ctx.writer.run(async (trx) => {
      // SQLite's write-once guard refuses a taken id before the unique index could: answer it as the conflict it is
      const taken = await trx
        .selectFrom('listings')
        .select('seq')
        .where('listing_id', '=', listing.listing_id)
        .executeTakeFirst();
      if (taken) throw conflict(listing.listing_id);
      await insertListing(trx, listing, actorOf(credential));
      await appendEvent(trx, ctx, {
        event_type: 'ns.listing.registered',
        actor_entity_id: actorOf(credential),
        principal_entity_id: null,
        subject_ref: listing.listing_id,
        reason_code: 'listing_registered',
        data: {
          kind: listing.kind,
          publisher_tier: listing.publisher.tier,
          pricing_model: listing.pricing_model,
          connector_id: listing.connector_id,
          document_digest: listingDocumentDigest(listing),
        },
      });
    });
  } catch (error) {
    throw duplicateAsConflict(error, `listing \`${listing.listing_id}\``, '/listing_id');
  }
  const [served] = await serveListings(ctx, [listing]);
  return served!;
}

function conflict(id: string): AarError {
  return new AarError('conflict', `listing \`${id}\` already exists`, {
    errors: [{ path: '/listing_id', message: 'already exists' }],
  });
}
