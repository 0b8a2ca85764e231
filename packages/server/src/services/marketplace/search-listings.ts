/**
 * `GET /v1/listings/search`: listings in registration order matching every filter given, a page at a time (the
 * cursor of routes/pagination.ts). Facet filters match a listing that has the value among its sectors, regimes or
 * jurisdictions; `q` is a case-insensitive substring of the title or the publisher's name; `min_score` keeps the
 * listings whose trust score, computed for this answer, is at least that. Because scores are computed, not stored,
 * a `min_score` search reads listings in batches and scores them; it stops after MAX_SCANNED listings with a
 * cursor, so a page may then hold fewer than `limit` items: follow `next_cursor` until it is null.
 * Attacker assumption: every filter is caller text; it only ever reaches SQL as a bound parameter (LIKE wildcards
 * in `q` escaped).
 */
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { encodeCursor, type Page } from '../../routes/pagination.ts';
import type { ListingsTable } from '../../store/index.ts';
import type { RegisteredListing, ServedListing } from './listing-document.ts';
import { notRunArtifact } from '../conformance/run-artifacts.ts';
import { scoreListings } from './score-listings.ts';
import { registeredOf, serveListings } from './serve-listings.ts';

export interface ListingSearch {
  sector?: string | undefined;
  regime?: string | undefined;
  jurisdiction?: string | undefined;
  pricing_model?: ListingsTable['pricing_model'] | undefined;
  publisher_tier?: ListingsTable['publisher_tier'] | undefined;
  q?: string | undefined;
  min_score?: number | undefined;
  /** also the listings conformance-kit runs registered (left out by default: they are test data, not offers) */
  include_conformance?: boolean | undefined;
  limit: number;
  afterSeq: number;
}

export const MAX_SCANNED = 5_000;
const SCORE_BATCH = 200;

export async function searchListings(ctx: AppContext, search: ListingSearch): Promise<Page<ServedListing>> {
  if (search.min_score === undefined) {
    const rows = await matching(ctx, search, search.afterSeq, search.limit + 1);
    const more = rows.length > search.limit;
    const shown = rows.slice(0, search.limit);
    return {
      items: await serveListings(ctx, shown.map(registeredOf)),
      next_cursor: more ? encodeCursor(shown[shown.length - 1]!.seq) : null,
    };
  }
  const kept: Array<{ seq: number; listing: RegisteredListing }> = [];
  let after = search.afterSeq;
  let scanned = 0;
  for (;;) {
    const rows = await matching(ctx, search, after, SCORE_BATCH);
    const listings = rows.map(registeredOf);
    const scores = await scoreListings(ctx, listings);
    for (let i = 0; i < rows.length; i += 1) {
      scanned += 1;
      after = rows[i]!.seq;
      if (scores[i]!.score >= search.min_score) kept.push({ seq: after, listing: listings[i]! });
      if (kept.length > search.limit) break;
    }
    if (kept.length > search.limit) {
      const shown = kept.slice(0, search.limit);
      return {
        items: await serveListings(
          ctx,
          shown.map((k) => k.listing),
        ),
        next_cursor: encodeCursor(shown.at(-1)!.seq),
      };
    }
    if (rows.length < SCORE_BATCH)
      return {
        items: await serveListings(
          ctx,
          kept.map((k) => k.listing),
        ),
        next_cursor: null,
      };
    if (scanned >= MAX_SCANNED) {
      return {
        items: await serveListings(
          ctx,
          kept.map((k) => k.listing),
        ),
        next_cursor: encodeCursor(after),
      };
    }
  }
}

async function matching(
  ctx: AppContext,
  search: ListingSearch,
  afterSeq: number,
  limit: number,
): Promise<Array<{ seq: number; listing_id: string; document: string }>> {
  let query = ctx.store.db
    .selectFrom('listings')
    .select(['seq', 'listing_id', 'document'])
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit);
  if (!search.include_conformance) query = query.where(notRunArtifact('listings.listing_id'));
  if (search.pricing_model !== undefined) query = query.where('pricing_model', '=', search.pricing_model);
  if (search.publisher_tier !== undefined) query = query.where('publisher_tier', '=', search.publisher_tier);
  for (const [facet, value] of [
    ['sector', search.sector],
    ['regime', search.regime],
    ['jurisdiction', search.jurisdiction],
  ] as const) {
    if (value === undefined) continue;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('listing_facets as f')
          .select('f.listing_seq')
          .whereRef('f.listing_seq', '=', 'listings.seq')
          .where('f.facet', '=', facet)
          .where('f.value', '=', value),
      ),
    );
  }
  if (search.q !== undefined) {
    const pattern = `%${search.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`search_text like ${pattern} escape '\\'`);
  }
  const rows = await query.execute();
  return rows.map((r) => ({ seq: Number(r.seq), listing_id: r.listing_id, document: r.document }));
}
