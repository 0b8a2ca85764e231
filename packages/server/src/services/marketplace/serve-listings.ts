/**
 * Listings as served: the registered document exactly as stored and signed at write (listing-integrity.ts checks it
 * first and refuses the answer when it does not hold: fail closed, never re-signing an edited row), its trust score
 * computed now (score-listings.ts), the whole signed with the instance's current key (CONTRACT section 4). Ed25519
 * is deterministic, so one key signs one listing's bytes the same way every time; instances with other keys sign the
 * same bytes, and the JWKS publishes every instance's key.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, signDocument, type Jwks } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { integrityFailure } from '../authorize/chained-state.ts';
import type { ServedListing } from './listing-document.ts';
import {
  parseStoredListing,
  registeredPart,
  storedListingProblem,
  type RegisteredEventFacts,
  type StoredListing,
} from './listing-integrity.ts';
import { scoreListings } from './score-listings.ts';

export async function serveListings(ctx: AppContext, listings: readonly StoredListing[]): Promise<ServedListing[]> {
  await assertAsRegistered(ctx, listings);
  const registered = listings.map(registeredPart);
  const scores = await scoreListings(ctx, registered);
  const signer = ctx.keys.current();
  return Promise.all(
    registered.map(
      (listing, i) => signDocument({ ...listing, trust_score: scores[i]! }, signer) as Promise<ServedListing>,
    ),
  );
}

/** The stored listing of a `listings` row (its `document`), signature included; `undefined`-safe callers check. */
export function registeredOf(row: { listing_id: string; document: string }): StoredListing {
  const stored = parseStoredListing(row.document);
  if (!stored) throw integrityFailure('listings', row.listing_id, 'document');
  return stored;
}

/** Per app, the listings (by digest of their stored bytes) already checked: immutable, so a hit needs no new check. */
const checkedByApp = new WeakMap<AppContext, Set<string>>();
const CHECKED_LIMIT = 20_000;

async function assertAsRegistered(ctx: AppContext, listings: readonly StoredListing[]): Promise<void> {
  const checked = checkedByApp.get(ctx) ?? new Set<string>();
  checkedByApp.set(ctx, checked);
  const keyOf = (l: StoredListing) => createHash('sha256').update(canonicalJson(l)).digest('base64url');
  const keys = listings.map(keyOf);
  const pending = listings.filter((_, i) => !checked.has(keys[i]!));
  if (pending.length === 0) return;
  const jwks = (await ctx.keys.jwks()) as Jwks;
  const events = await registrationFacts(
    ctx,
    pending.filter((l) => l.signature === undefined).map((l) => l.listing_id),
  );
  const problems = await Promise.all(pending.map((l) => storedListingProblem(l, jwks, events.get(l.listing_id))));
  const at = problems.findIndex((p) => p !== undefined);
  // the column is the document (a member it restates, or its signature, does not hold)
  if (at >= 0) throw integrityFailure('listings', pending[at]!.listing_id, 'document');
  if (checked.size + pending.length > CHECKED_LIMIT) checked.clear();
  for (const l of pending) checked.add(keyOf(l));
}

/** The facts the `ns.listing.registered` events of unsigned (legacy) listings restate, by listing id. */
async function registrationFacts(ctx: AppContext, ids: readonly string[]): Promise<Map<string, RegisteredEventFacts>> {
  const out = new Map<string, RegisteredEventFacts>();
  if (ids.length === 0) return out;
  const rows = await ctx.store.db
    .selectFrom('events')
    .select(['subject_ref', 'envelope'])
    .where('event_type', '=', 'ns.listing.registered')
    .where('subject_ref', 'in', [...new Set(ids)])
    .execute();
  for (const row of rows) {
    try {
      const data = (JSON.parse(row.envelope) as { data?: RegisteredEventFacts }).data;
      if (data && typeof data === 'object') out.set(row.subject_ref, data);
    } catch {
      // an unreadable envelope vouches for nothing: the listing is then refused (and verify names the event)
    }
  }
  return out;
}
