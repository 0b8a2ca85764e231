/**
 * Is a stored listing what was registered? A listing is signed by the service when it is WRITTEN (register-listing.ts,
 * seed-reference-listings.ts) and stored with that signature; whoever reads it (serve-listings.ts, and
 * audit/record-checks/check-listings.ts) checks the stored bytes before trusting a word of them.
 * Attacker assumption: someone with write access to the database but not the service key edits a listing's row (tier
 * `community` to `certified`, another title, another connector). A signed listing edited that way no longer
 * verifies; the service then refuses to serve it (fail closed) rather than sign the edit with its own key at read.
 *
 * Listings written before signatures (legacy, no `signature` member) cannot be signed now without trusting what the
 * database says today, so they are checked against what does not live in the listings table:
 * - a registered listing against its `ns.listing.registered` event (chained: check-events.ts checks its envelope
 *   against its audit entry): the facts that event restates (kind, tier, pricing model, connector) must be the row's;
 *   an event that commits to a document digest means the listing was signed, so an unsigned row is an edit;
 * - a reference listing against this release's definition of it (reference-listings.ts: data of the release).
 */
import { canonicalJson, verifyDocument, type ConnectorManifest, type DocumentSignature, type Jwks } from '@aar/core';
import { digestOfCanonical } from '../../audit/audit-entry.ts';
import { connectorCatalogue } from '../connectors/connector-catalogue.ts';
import type { RegisteredListing } from './listing-document.ts';
import { REFERENCE_ID_PREFIX, referenceListing } from './reference-listings.ts';

/** A listing as stored: the registered listing with the service's signature made at write (absent: legacy). */
export type StoredListing = RegisteredListing & { signature?: DocumentSignature };
/** A listing signed at write: what is stored from this release on. */
export type SignedListing = RegisteredListing & { signature: DocumentSignature };

/** What a listing's `ns.listing.registered` event (data and actor) says about it. */
export interface RegisteredEventFacts {
  kind: unknown;
  publisher_tier: unknown;
  pricing_model: unknown;
  connector_id: unknown;
  /** absent on events written before listings were signed at write */
  document_digest?: unknown;
}

export function parseStoredListing(text: string): StoredListing | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const listing = value as StoredListing;
    return typeof listing.listing_id === 'string' ? listing : undefined;
  } catch {
    return undefined;
  }
}

/** The registered listing without the signature made at write. */
export function registeredPart(stored: StoredListing): RegisteredListing {
  const { signature: _signature, ...registered } = stored;
  return registered;
}

/** The digest a listing's event commits to: of the stored document's RFC 8785 bytes, signature included. */
export function listingDocumentDigest(stored: StoredListing): string {
  return digestOfCanonical(canonicalJson(stored));
}

export function isReferenceListingId(id: string): boolean {
  return id.startsWith(REFERENCE_ID_PREFIX);
}

/**
 * Why `stored` cannot be trusted (the member at fault), or undefined. `event`: the facts of its registration event,
 * when it has one; `jwks`: the service's keys (every instance's, current and retired).
 */
export async function storedListingProblem(
  stored: StoredListing,
  jwks: Jwks,
  event: RegisteredEventFacts | undefined,
): Promise<string | undefined> {
  if (stored.signature !== undefined) {
    return (await verifyDocument(stored, jwks)).valid ? undefined : 'signature';
  }
  if (isReferenceListingId(stored.listing_id) && event === undefined) return legacyReferenceProblem(stored);
  if (event === undefined) return 'signature';
  // the event commits to a signed document: an unsigned row lost its signature to an edit
  if (event.document_digest !== undefined) return 'signature';
  const facts: Array<[string, unknown, unknown]> = [
    ['kind', stored.kind, event.kind],
    ['publisher_tier', stored.publisher?.tier, event.publisher_tier],
    ['pricing_model', stored.pricing_model, event.pricing_model],
    ['connector_id', stored.connector_id, event.connector_id],
  ];
  for (const [member, actual, committed] of facts) if (actual !== committed) return member;
  return undefined;
}

let manifests: Map<string, ConnectorManifest> | undefined;

/** An unsigned reference listing must be exactly this release's definition of it (registered_at aside). */
function legacyReferenceProblem(stored: StoredListing): string | undefined {
  manifests ??= new Map(connectorCatalogue().map((m) => [m.connector_id, m]));
  const manifest = typeof stored.connector_id === 'string' ? manifests.get(stored.connector_id) : undefined;
  if (!manifest || typeof stored.registered_at !== 'string') return 'connector_id';
  const expected = referenceListing(manifest, stored.registered_at);
  return canonicalJson(expected) === canonicalJson(stored) ? undefined : 'document';
}
