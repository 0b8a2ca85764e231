/**
 * Marketplace listings (GET /v1/listings/search): each listing's trust score with its five components explained,
 * and its signature checked in this browser against the published JWKS (a listing is a signed document, so a copy
 * passed around can be trusted only as far as its signature verifies).
 */
import { useState } from 'preact/hooks';
import { verifyDocument, type Jwks } from '@aar/core';
import { formatTime } from '../parts/format.ts';
import { LoadState } from '../parts/load-state.tsx';
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

export function ListingsPage() {
  const { api } = useSession();
  const [draft, setDraft] = useState({ q: '', min: '' });
  const [filter, setFilter] = useState({ q: '', min: '' });
  const listings = useApi(async () => {
    const [page, jwks] = await Promise.all([
      api.get<{ items: Listing[] }>('/v1/listings/search', {
        q: filter.q || undefined,
        min_score: filter.min || undefined,
        limit: '100',
      }),
      api.get<Jwks>('/.well-known/jwks.json'),
    ]);
    return Promise.all(
      page.items.map(async (listing): Promise<Checked> => ({
        listing,
        signatureValid: (await verifyDocument(listing, jwks)).valid,
      })),
    );
  }, [filter]);

  return (
    <>
      <h1>Marketplace listings</h1>
      <form
        class="card search-form"
        role="search"
        aria-label="Search listings"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        <div class="field">
          <label for="listing-q">Title or publisher</label>
          <input
            id="listing-q"
            type="search"
            value={draft.q}
            onInput={(e) => setDraft({ ...draft, q: (e.currentTarget as HTMLInputElement).value })}
          />
        </div>
        <div class="field">
          <label for="listing-min">Lowest trust score (0-100)</label>
          <input
            id="listing-min"
            type="text"
            inputMode="numeric"
            value={draft.min}
            onInput={(e) => setDraft({ ...draft, min: (e.currentTarget as HTMLInputElement).value })}
          />
        </div>
        <div class="actions">
          <button type="submit">Search</button>
        </div>
      </form>
      <LoadState loaded={listings}>
        {(rows) =>
          rows.length === 0 ? (
            <p class="muted">No listing matches.</p>
          ) : (
            <ul class="tree" aria-label="Listings">
              {rows.map(({ listing, signatureValid }) => (
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
          )
        }
      </LoadState>
    </>
  );
}
