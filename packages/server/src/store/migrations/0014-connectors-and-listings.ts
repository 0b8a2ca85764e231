import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import { guardPostgresTable, guardSqliteTable, type GuardedTable } from './write-once-guards.ts';

/**
 * Connectors and marketplace listings (CONTRACT section 15, docs/connectors.md, docs/marketplace.md).
 * - `api_tokens.connector_id`: the connector a credential is bound to (null: none). The manifest itself is data
 *   shipped with the package (packages/server/connectors), never a table: what a connector must do is the same on
 *   every instance of a release.
 * - `listings`: one row per registered listing, write-once (the database refuses UPDATE and DELETE, like the audit
 *   tables): a changed offer is a new listing. Its trust score is not stored: it is computed when read, from the
 *   listing, its connector's manifest and the service's own records (docs/marketplace.md).
 * - `listing_facets`: the sectors, regimes and jurisdictions of each listing, one row per value, so the search
 *   filters are indexed lookups on both dialects (no JSON operators).
 */
export const LISTING_GUARDS: readonly GuardedTable[] = [
  { table: 'listings', uniqueKeys: [['seq'], ['listing_id']], stateColumns: [] },
  { table: 'listing_facets', uniqueKeys: [['listing_seq', 'facet', 'value']], stateColumns: [] },
];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('api_tokens').addColumn('connector_id', 'text').execute();

  await withSeq(db.schema.createTable('listings'), dialect)
    .addColumn('listing_id', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('publisher_name', 'text', (c) => c.notNull())
    .addColumn('publisher_tier', 'text', (c) => c.notNull())
    .addColumn('pricing_model', 'text', (c) => c.notNull())
    .addColumn('connector_id', 'text')
    .addColumn('conformance_report_id', 'text')
    // the registered listing as given (RFC 8785 JSON, unsigned, without trust_score): what the listing says
    .addColumn('document', 'text', (c) => c.notNull())
    // lowercased title and publisher name: what `q` searches
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('registered_by', 'text')
    .addCheckConstraint('listings_kind', sql`kind in ('connector', 'agent', 'service')`)
    .addCheckConstraint('listings_tier', sql`publisher_tier in ('community', 'verified', 'certified')`)
    .addCheckConstraint('listings_pricing', sql`pricing_model in ('free', 'usage', 'subscription', 'enterprise')`)
    .execute();
  await db.schema.createIndex('listings_tier').on('listings').columns(['publisher_tier', 'seq']).execute();
  await db.schema.createIndex('listings_pricing').on('listings').columns(['pricing_model', 'seq']).execute();

  await db.schema
    .createTable('listing_facets')
    .addColumn('listing_seq', 'bigint', (c) => c.notNull())
    .addColumn('facet', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('listing_facets_pk', ['listing_seq', 'facet', 'value'])
    .addCheckConstraint('listing_facets_facet', sql`facet in ('sector', 'regime', 'jurisdiction')`)
    .execute();
  await db.schema
    .createIndex('listing_facets_lookup')
    .on('listing_facets')
    .columns(['facet', 'value', 'listing_seq'])
    .execute();

  for (const guard of LISTING_GUARDS) {
    if (dialect === 'sqlite') await guardSqliteTable(db, guard, true);
    else await guardPostgresTable(db, guard);
  }
}
