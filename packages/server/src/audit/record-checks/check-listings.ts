/**
 * Every marketplace listing (and its facets) against what commits to it:
 * - a listing registered through the API against its `ns.listing.registered` event, whose envelope check-events.ts
 *   checks against its audit entry: the event's `document_digest` is the digest of the stored `document` bytes (the
 *   listing signed by the service at write), and `registered_by` is the event's actor;
 * - the document's signature verifies with the service's keys (a reference listing, seeded at start without an
 *   event, is anchored by that signature alone: data of the release, signed by the instance that seeded it);
 * - listings stored before signatures (legacy) are checked as listing-integrity.ts checks them before serving;
 * - every column restates the document (they are what search filters on) and `listing_facets` holds exactly the
 *   document's sectors, regimes and jurisdictions.
 * A full run checks every listing, a page at a time (O(page) memory); an incremental run, the listings registered
 * since its mark and the reference listings (changed-subjects.ts).
 */
import { canonicalJson, type Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import {
  isReferenceListingId,
  parseStoredListing,
  storedListingProblem,
  type RegisteredEventFacts,
  type StoredListing,
} from '../../services/marketplace/listing-integrity.ts';
import { searchText } from '../../services/marketplace/store-listing.ts';
import type { Database } from '../../store/index.ts';
import { digestOfCanonical } from '../audit-entry.ts';
import { changedSubjects, chunksOf } from './changed-subjects.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';

interface ListingRow {
  seq: number;
  listing_id: string;
  kind: string;
  title: string;
  publisher_name: string;
  publisher_tier: string;
  pricing_model: string;
  connector_id: string | null;
  conformance_report_id: string | null;
  document: string;
  search_text: string;
  registered_at: string;
  registered_by: string | null;
}

interface Registration {
  audit_ref: string;
  actor_entity_id: unknown;
  data: RegisteredEventFacts;
}

type Problem = { reason: 'record_digest_mismatch' | 'record_mismatch' | 'record_signature_invalid'; detail: string };

export async function checkListings(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  // incremental: the listings registered since the mark, and the reference listings (seeded without events: few)
  const changed = await changedSubjects(db, findings.scope, ['ns.listing.registered']);
  const chunks =
    changed &&
    chunksOf(
      [
        ...changed,
        ...(await db.selectFrom('listings').select('listing_id').where('registered_by', 'is', null).execute()).map(
          (r) => r.listing_id,
        ),
      ],
      pageSize,
    );
  let after = 0;
  for (let chunk = 0; ; chunk++) {
    let query = db
      .selectFrom('listings')
      .select([
        'seq',
        'listing_id',
        'kind',
        'title',
        'publisher_name',
        'publisher_tier',
        'pricing_model',
        'connector_id',
        'conformance_report_id',
        'document',
        'search_text',
        'registered_at',
        'registered_by',
      ]);
    if (chunks) {
      if (chunk >= chunks.length) return;
      query = query.where('listing_id', 'in', chunks[chunk]!);
    } else query = query.where('seq', '>', after).orderBy('seq').limit(pageSize);
    const rows: ListingRow[] = await query.execute();
    if (rows.length === 0) {
      if (chunks) continue;
      return;
    }
    after = Number(rows[rows.length - 1]!.seq);
    const registrations = await registrationsOf(db, rows);
    const entries = await entriesById(
      db,
      [...registrations.values()].map((r) => r.audit_ref),
      findings.size,
    );
    const facets = await facetsOf(db, rows);
    await Promise.all(
      rows.map(async (row) => {
        const record = { table: 'listings', id: row.listing_id };
        const registration = registrations.get(row.listing_id);
        let index: number | undefined;
        if (registration) {
          const entry = entries.get(registration.audit_ref);
          // registered after the tip this run read: the next run's
          if (!entry) {
            if (!(await existsBeyond(db, registration.audit_ref, findings.size))) {
              findings.fail({ reason: 'record_unanchored', record, detail: 'listing_id' });
            }
            return;
          }
          index = entry.index;
        } else if (!isReferenceListingId(row.listing_id) || row.registered_by !== null) {
          findings.fail({ reason: 'record_unanchored', record, detail: 'listing_id' });
          return;
        }
        const problem = await listingProblem(row, registration, jwks);
        if (problem) {
          findings.fail({ ...problem, ...(index === undefined ? {} : { index }), record });
          return;
        }
        const facetProblem = facetsProblem(row, facets.get(Number(row.seq)) ?? []);
        if (facetProblem) {
          findings.fail({
            reason: 'record_mismatch',
            ...(index === undefined ? {} : { index }),
            record: { table: 'listing_facets', id: row.listing_id },
            detail: facetProblem,
          });
        }
      }),
    );
  }
}

async function listingProblem(
  row: ListingRow,
  registration: Registration | undefined,
  jwks: Jwks,
): Promise<Problem | undefined> {
  const stored = parseStoredListing(row.document);
  if (!stored || canonicalJson(stored) !== row.document)
    return { reason: 'record_digest_mismatch', detail: 'document' };
  if (registration) {
    const committed = registration.data.document_digest;
    if (committed !== undefined && committed !== digestOfCanonical(row.document)) {
      return { reason: 'record_digest_mismatch', detail: 'document' };
    }
    if (row.registered_by !== registration.actor_entity_id)
      return { reason: 'record_mismatch', detail: 'registered_by' };
  }
  const integrity = await storedListingProblem(stored, jwks, registration?.data);
  if (integrity === 'signature') return { reason: 'record_signature_invalid', detail: 'document' };
  if (integrity !== undefined) return { reason: 'record_mismatch', detail: integrity };
  const column = columnProblem(row, stored);
  return column ? { reason: 'record_mismatch', detail: column } : undefined;
}

/** The first column that does not restate the (checked) document. */
function columnProblem(row: ListingRow, doc: StoredListing): string | undefined {
  const expected: Array<[keyof ListingRow, unknown]> = [
    ['listing_id', doc.listing_id],
    ['kind', doc.kind],
    ['title', doc.title],
    ['publisher_name', doc.publisher?.name],
    ['publisher_tier', doc.publisher?.tier],
    ['pricing_model', doc.pricing_model],
    ['connector_id', doc.connector_id],
    ['conformance_report_id', doc.conformance_report_id],
    ['registered_at', doc.registered_at],
  ];
  for (const [column, value] of expected) if (row[column] !== value) return column;
  if (typeof doc.title !== 'string' || typeof doc.publisher?.name !== 'string') return 'document';
  return row.search_text === searchText(doc) ? undefined : 'search_text';
}

function facetsProblem(row: ListingRow, stored: readonly string[]): string | undefined {
  const doc = JSON.parse(row.document) as StoredListing;
  const expected = [
    ...(doc.sectors ?? []).map((v) => `sector\n${v}`),
    ...(doc.regimes ?? []).map((v) => `regime\n${v}`),
    ...(doc.jurisdictions ?? []).map((v) => `jurisdiction\n${v}`),
  ].sort();
  const actual = [...stored].sort();
  return canonicalJson(expected) === canonicalJson(actual) ? undefined : 'value';
}

/** The `ns.listing.registered` events of a page of listings (one per listing: ids are taken once). */
async function registrationsOf(db: Kysely<Database>, rows: readonly ListingRow[]): Promise<Map<string, Registration>> {
  const out = new Map<string, Registration>();
  const events = await db
    .selectFrom('events')
    .select(['subject_ref', 'envelope'])
    .where('event_type', '=', 'ns.listing.registered')
    .where(
      'subject_ref',
      'in',
      rows.map((r) => r.listing_id),
    )
    .execute();
  for (const event of events) {
    try {
      const envelope = JSON.parse(event.envelope) as Partial<Registration>;
      if (typeof envelope.audit_ref !== 'string' || typeof envelope.data !== 'object' || envelope.data === null) {
        continue; // an unreadable envelope is check-events.ts's finding; the listing then counts as unanchored
      }
      out.set(event.subject_ref, {
        audit_ref: envelope.audit_ref,
        actor_entity_id: envelope.actor_entity_id,
        data: envelope.data,
      });
    } catch {
      continue;
    }
  }
  return out;
}

/** `facet\nvalue` of every facet row of a page of listings, by listing `seq`. */
async function facetsOf(db: Kysely<Database>, rows: readonly ListingRow[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  const found = await db
    .selectFrom('listing_facets')
    .select(['listing_seq', 'facet', 'value'])
    .where(
      'listing_seq',
      'in',
      rows.map((r) => Number(r.seq)),
    )
    .execute();
  for (const f of found) {
    const seq = Number(f.listing_seq);
    const list = out.get(seq) ?? [];
    list.push(`${f.facet}\n${f.value}`);
    out.set(seq, list);
  }
  return out;
}
