/**
 * Marketplace listings (GET /v1/listings/search): each listing's trust score with its five components explained,
 * and its signature checked in this browser against the published JWKS (a listing is a signed document, so a copy
 * passed around can be trusted only as far as its signature verifies). A page at a time, filtered by text, lowest
 * score, sector, publisher tier and pricing (kept in the URL); with a lowest score a page may hold fewer listings.
 */
import { PUBLISHER_TIERS, verifyDocument, type Jwks } from '@aar/core';
import { formatTime } from '../parts/format.ts';
import { LoadState } from '../parts/load-state.tsx';
import { PAGE_SIZE, PageControls, usePages, useUrlFilter, type Page } from '../parts/paging.tsx';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Listing {
  listing_id: string;
  kind: string;
  title: string;
  publisher: { name: string; tier: string };
  sectors: string[];
  pricing_model: string;
  trust_score: {
    score: number;
    computed_at: string;
    components: { name: string; weight: number; value: number; explanation: string }[];
  };
}

interface Checked {
  listing: Listing;
  signatureValid: boolean;
}

const FILTERS = ['q', 'min', 'tier', 'pricing', 'sector'] as const;
const PRICING = ['free', 'usage', 'subscription', 'enterprise'];

export function ListingsPage() {
  const { api } = useSession();
  const filter = useUrlFilter(FILTERS);
  const pages = usePages(filter.key);
  const { q, min, tier, pricing, sector } = filter.applied;
  const listings = useApi(async () => {
    const [page, jwks] = await Promise.all([
      api.get<Page<Listing>>('/v1/listings/search', {
        q: q || undefined,
        min_score: min || undefined,
        publisher_tier: tier || undefined,
        pricing_model: pricing || undefined,
        sector: sector || undefined,
        limit: String(PAGE_SIZE),
        cursor: pages.cursor,
      }),
      api.get<Jwks>('/.well-known/jwks.json'),
    ]);
    const items = await Promise.all(
      page.items.map(async (listing): Promise<Checked> => ({
        listing,
        signatureValid: (await verifyDocument(listing, jwks)).valid,
      })),
    );
    return { items, next_cursor: page.next_cursor };
  }, [filter.key, pages.cursor]);
  const text = (name: 'q' | 'min' | 'sector') => ({
    id: `listing-${name}`,
    value: filter.draft[name],
    onInput: (e: Event) => filter.set(name, (e.currentTarget as HTMLInputElement).value),
  });

  return (
    <>
      <h1>Marketplace listings</h1>
      <form
        class="card search-form"
        role="search"
        aria-label="Search listings"
        onSubmit={(e) => {
          e.preventDefault();
          filter.apply();
        }}
      >
        <div class="field">
          <label for="listing-q">Title or publisher</label>
          <input type="search" {...text('q')} />
        </div>
        <div class="field">
          <label for="listing-min">Lowest trust score (0-100)</label>
          <input type="text" inputMode="numeric" {...text('min')} />
        </div>
        <div class="field">
          <label for="listing-sector">Sector</label>
          <input type="text" placeholder="retail" {...text('sector')} />
        </div>
        <div class="field">
          <label for="listing-tier">Publisher tier</label>
          <select
            id="listing-tier"
            value={filter.draft.tier}
            onChange={(e) => filter.apply('tier', (e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Any tier</option>
            {PUBLISHER_TIERS.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="listing-pricing">Pricing</label>
          <select
            id="listing-pricing"
            value={filter.draft.pricing}
            onChange={(e) => filter.apply('pricing', (e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Any pricing</option>
            {PRICING.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <div class="actions">
          <button type="submit">Search</button>
          <button type="button" class="secondary" onClick={filter.clear}>
            Clear
          </button>
        </div>
      </form>
      <LoadState loaded={listings}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p class="muted">No listing matches{pages.number > 1 ? ' on this page' : ''}.</p>
            ) : (
              <ul class="tree" aria-label="Listings">
                {page.items.map(({ listing, signatureValid }) => (
                  <li key={listing.listing_id} class="tree-node">
                    <article class="grant-card" aria-label={listing.title}>
                      <div class="grant-head">
                        <strong>{listing.title}</strong>
                        <span class="badge badge-neutral">{listing.kind}</span>
                        <span class={signatureValid ? 'ok-text' : 'fail-text'} data-testid="listing-signature">
                          {signatureValid ? 'signature verified' : 'signature does not verify'}
                        </span>
                      </div>
                      <p class="muted">
                        {listing.publisher.name} ({listing.publisher.tier}) · {listing.pricing_model} ·{' '}
                        {listing.sectors.join(', ') || 'all sectors'}
                      </p>
                      <p>
                        Trust score <strong>{listing.trust_score.score}</strong> / 100{' '}
                        <span class="muted">as of {formatTime(listing.trust_score.computed_at)}</span>
                      </p>
                      <details>
                        <summary>How the score is made</summary>
                        <ul>
                          {listing.trust_score.components.map((c) => (
                            <li key={c.name}>
                              <code>{c.name}</code> {c.value} × weight {c.weight}: {c.explanation}
                            </li>
                          ))}
                        </ul>
                      </details>
                    </article>
                  </li>
                ))}
              </ul>
            )}
            <PageControls pages={pages} page={page} label="listings" />
          </>
        )}
      </LoadState>
    </>
  );
}
