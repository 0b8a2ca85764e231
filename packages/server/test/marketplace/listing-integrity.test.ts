/**
 * listing-integrity.ts, the check every read makes before serving a stored listing (and verify makes again): a
 * listing signed at write holds only while its signature verifies; a legacy (unsigned) listing holds only while it
 * agrees with what lives outside the listings table: its registration event's facts, or, for a reference listing,
 * this release's definition. Attacker assumption: SQL access without the service key.
 */
import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { signDocument, type Jwks } from '@aar/core';
import { describe, expect, it } from 'vitest';
import { connectorCatalogue } from '../../src/services/connectors/connector-catalogue.ts';
import type { RegisteredListing } from '../../src/services/marketplace/listing-document.ts';
import {
  listingDocumentDigest,
  storedListingProblem,
  type StoredListing,
} from '../../src/services/marketplace/listing-integrity.ts';
import { referenceListing } from '../../src/services/marketplace/reference-listings.ts';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const KID = 'service-key-1';
const jwks = {
  keys: [{ ...(publicKey.export({ format: 'jwk' }) as object), kid: KID, alg: 'EdDSA', use: 'sig' }],
} as unknown as Jwks;
const signer = { keyId: KID, sign: async (m: Uint8Array) => new Uint8Array(nodeSign(null, m, privateKey)) };

const registered: RegisteredListing = {
  schema_version: 'ns.marketplace_listing.v1',
  listing_id: 'ns:listing:modest',
  kind: 'agent',
  title: 'Modest Agent',
  publisher: { name: 'Small Shop', tier: 'community' },
  sectors: ['retail'],
  regimes: [],
  jurisdictions: ['DE'],
  pricing_model: 'free',
  connector_id: null,
  conformance_report_id: null,
  declared_profiles: [],
  registered_at: '2026-11-24T10:00:00.000Z',
};
const facts = { kind: 'agent', publisher_tier: 'community', pricing_model: 'free', connector_id: null };
const certified = (l: StoredListing): StoredListing => ({ ...l, publisher: { ...l.publisher, tier: 'certified' } });

describe('a stored listing is what was registered', () => {
  it('signed at write: holds while its signature verifies, and an edited member breaks it', async () => {
    const signed = (await signDocument(registered, signer)) as StoredListing;
    const event = { ...facts, document_digest: listingDocumentDigest(signed) };
    expect(await storedListingProblem(signed, jwks, event)).toBeUndefined();
    expect(await storedListingProblem(certified(signed), jwks, event)).toBe('signature');
    expect(await storedListingProblem({ ...signed, title: 'Famous Agent' }, jwks, event)).toBe('signature');
    // signed by a key the service does not publish
    const other = generateKeyPairSync('ed25519').privateKey;
    const forged = (await signDocument(certified(registered), {
      keyId: KID,
      sign: async (m) => new Uint8Array(nodeSign(null, m, other)),
    })) as StoredListing;
    expect(await storedListingProblem(forged, jwks, event)).toBe('signature');
  });

  it('an unsigned listing whose event commits to a signed document lost its signature to an edit', async () => {
    const signed = (await signDocument(registered, signer)) as StoredListing;
    const event = { ...facts, document_digest: listingDocumentDigest(signed) };
    expect(await storedListingProblem(certified(registered), jwks, event)).toBe('signature');
    // and one with no event at all is anchored by nothing
    expect(await storedListingProblem(registered, jwks, undefined)).toBe('signature');
  });

  it('legacy (unsigned, registered before signatures): holds only while it agrees with its event', async () => {
    expect(await storedListingProblem(registered, jwks, facts)).toBeUndefined();
    expect(await storedListingProblem(certified(registered), jwks, facts)).toBe('publisher_tier');
    expect(await storedListingProblem({ ...registered, pricing_model: 'usage' }, jwks, facts)).toBe('pricing_model');
    expect(await storedListingProblem({ ...registered, kind: 'service' }, jwks, facts)).toBe('kind');
  });

  it("legacy reference listing: holds only while it is this release's definition of it", async () => {
    const manifest = connectorCatalogue().find((m) => m.status !== 'deprecated')!;
    const reference = referenceListing(manifest, '2026-11-20T08:00:00.000Z');
    expect(await storedListingProblem(reference, jwks, undefined)).toBeUndefined();
    expect(await storedListingProblem(certified(reference), jwks, undefined)).toBe('document');
    expect(
      await storedListingProblem(
        { ...reference, declared_profiles: [...reference.declared_profiles, 'x'] },
        jwks,
        undefined,
      ),
    ).toBe('document');
    expect(await storedListingProblem({ ...reference, connector_id: 'ns:connector:x:y' }, jwks, undefined)).toBe(
      'connector_id',
    );
  });
});
