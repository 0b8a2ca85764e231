/**
 * Marketplace listings (CONTRACT section 15, docs/marketplace.md): registered by an administrator, write-once,
 * served signed with a trust score computed when read. Any authenticated role may read and search.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CONFORMANCE_PROFILES, CONNECTOR_ID_PATTERN, PUBLISHER_TIERS } from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { getListing } from '../services/marketplace/get-listing.ts';
import {
  FACET_VALUE_PATTERN,
  LISTING_KINDS,
  MAX_FACET_VALUES,
  PRICING_MODELS,
} from '../services/marketplace/listing-document.ts';
import { registerListing } from '../services/marketplace/register-listing.ts';
import { searchListings } from '../services/marketplace/search-listings.ts';
import { includeConformanceProperty } from './include-conformance-query.ts';
import { pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import { IdParams, SINGLE_LINE_TEXT, Timestamp } from './schemas.ts';

const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

const FacetValue = Type.String({ pattern: FACET_VALUE_PATTERN, description: 'lowercase snake_case, e.g. `retail`' });
const Jurisdiction = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' });
const facets = <T extends typeof FacetValue | typeof Jurisdiction>(item: T, description: string) =>
  Type.Array(item, { maxItems: MAX_FACET_VALUES, description });

const Publisher = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: SINGLE_LINE_TEXT }),
    tier: oneOf(PUBLISHER_TIERS),
    entity_id: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'the publisher as an entity of this service (`ns:entity:organisation:<id>`): the `public_key_jwk` it ' +
          'registered is the only key its conformance report is checked against',
      }),
    ),
  },
  { additionalProperties: false },
);

const DeploymentUrl = Type.String({
  maxLength: 500,
  description: 'the https base URL of the deployment the listing offers: its conformance report must be about it',
});

const CreateBody = Type.Object(
  {
    listing_id: Type.Optional(Type.String({ maxLength: 160, description: '`ns:listing:<id>`; minted when omitted' })),
    kind: oneOf(LISTING_KINDS),
    title: Type.String({ minLength: 1, maxLength: 200, pattern: SINGLE_LINE_TEXT }),
    publisher: Publisher,
    sectors: facets(FacetValue, 'sectors it serves'),
    regimes: facets(FacetValue, 'regulatory regimes it addresses, e.g. `psd3`, `dora`, `eu_ai_act`'),
    jurisdictions: facets(Jurisdiction, 'where it is offered'),
    pricing_model: oneOf(PRICING_MODELS),
    connector_id: Type.Optional(
      Type.String({ maxLength: 200, pattern: CONNECTOR_ID_PATTERN, description: 'required for a connector listing' }),
    ),
    conformance_report_id: Type.Optional(
      Type.String({ maxLength: 100, description: '`ns:conformance_report:<uuid>`' }),
    ),
    conformance_report: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'a signed `ns.conformance_report.v1` of `deployment_url`, signed by the publisher entity’s registered ' +
            'key; stored, and named by the listing’s `conformance_report_id`',
        },
      ),
    ),
    deployment_url: Type.Optional(DeploymentUrl),
    declared_profiles: Type.Optional(
      Type.Array(oneOf(CONFORMANCE_PROFILES), {
        maxItems: 16,
        description: 'profiles it claims; default for a connector listing: its manifest’s',
      }),
    ),
  },
  { additionalProperties: false },
);

const Component = Type.Object({
  name: oneOf([
    'conformance',
    'security_posture',
    'publisher_tier',
    'operational_record',
    'evidence_freshness',
  ] as const),
  weight: Type.Integer(),
  value: Type.Integer({ minimum: 0, maximum: 100 }),
  inputs: Type.Object({}, { additionalProperties: true, description: 'what the value was computed from' }),
  explanation: Type.String(),
});

const Listing = Type.Object(
  {
    schema_version: Type.Literal('ns.marketplace_listing.v1'),
    listing_id: Type.String(),
    kind: oneOf(LISTING_KINDS),
    title: Type.String(),
    publisher: Publisher,
    sectors: Type.Array(Type.String()),
    regimes: Type.Array(Type.String()),
    jurisdictions: Type.Array(Type.String()),
    pricing_model: oneOf(PRICING_MODELS),
    connector_id: Type.Union([Type.String(), Type.Null()]),
    conformance_report_id: Type.Union([Type.String(), Type.Null()]),
    deployment_url: Type.Optional(DeploymentUrl),
    declared_profiles: Type.Array(Type.String()),
    registered_at: Timestamp,
    trust_score: Type.Object({
      score: Type.Integer({ minimum: 0, maximum: 100 }),
      components: Type.Array(Component, { minItems: 5, maxItems: 5 }),
      computed_at: Timestamp,
      method_version: Type.String(),
    }),
    signature: Type.Object({
      algorithm: Type.Literal('ed25519'),
      key_id: Type.String(),
      signature: Type.String(),
    }),
  },
  { description: 'JSON Schema: GET /v1/schemas/ns.marketplace_listing.v1' },
);

const SearchQuery = Type.Object(
  {
    ...pageQueryProperties,
    ...includeConformanceProperty,
    sector: Type.Optional(FacetValue),
    regime: Type.Optional(FacetValue),
    jurisdiction: Type.Optional(Jurisdiction),
    pricing_model: Type.Optional(oneOf(PRICING_MODELS)),
    publisher_tier: Type.Optional(oneOf(PUBLISHER_TIERS)),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: SINGLE_LINE_TEXT,
        description: 'case-insensitive text in the title or publisher, matched literally (`%` and `_` included)',
      }),
    ),
    min_score: Type.Optional(Type.String({ pattern: '^(100|[1-9]?[0-9])$', description: 'trust score 0-100' })),
  },
  { additionalProperties: false },
);

export async function listingRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['marketplace'];
  const readers = ['runtime', 'principal', 'auditor'] as const;

  r.post('/v1/listings', {
    config: { roles: ['admin'], errors: ['invalid_id', 'conflict', 'reference_not_found', 'reference_invalid'] },
    schema: {
      tags,
      summary: 'Register a marketplace listing (write-once)',
      operationId: 'createListing',
      description:
        'Registers a listing of a connector, agent or service and records `ns.listing.registered`. Listings are ' +
        'write-once: a changed offer is a new listing (409 `conflict` for a taken `listing_id`). A `connector` ' +
        'listing names a catalogue connector (422 for an unknown or deprecated one); `conformance_report_id` must ' +
        'name a stored report. Answers the listing as served: signed, with its trust score.',
      body: CreateBody,
      response: { 201: Listing },
    },
    handler: async (req, reply) => reply.code(201).send(await registerListing(ctx, req.credential, req.body)),
  });

  r.get('/v1/listings/search', {
    config: { roles: readers },
    schema: {
      tags,
      summary: 'Search listings by sector, regime, jurisdiction, pricing, publisher tier, text and score',
      operationId: 'searchListings',
      description:
        'Listings in registration order matching every filter given, each signed with its trust score computed ' +
        'as of the current UTC hour, a page at a time (`limit`, `cursor`). With `min_score` a page may hold fewer ' +
        'than `limit` listings: follow `next_cursor` until it is null. Listings that conformance-kit runs registered ' +
        'are left out unless `include_conformance=true`.',
      querystring: SearchQuery,
      response: { 200: pageSchema(Listing) },
    },
    handler: async (req) => {
      const { limit, cursor, min_score, include_conformance, ...filters } = req.query;
      const page = pageRequest({ limit, cursor });
      return searchListings(ctx, {
        ...filters,
        include_conformance: include_conformance === 'true',
        min_score: min_score === undefined ? undefined : Number(min_score),
        limit: page.limit,
        afterSeq: page.afterSeq,
      });
    },
  });

  r.get('/v1/listings/:id', {
    config: { roles: readers },
    schema: {
      tags,
      summary: 'One listing, signed, with its trust score',
      operationId: 'getListing',
      description:
        'The listing `ns:listing:<id>` as registered, with its trust score computed as of the current UTC hour ' +
        '(five components, each with weight, value, inputs and explanation; docs/marketplace.md), signed.',
      params: IdParams,
      response: { 200: Listing },
    },
    handler: async (req) => getListing(ctx, req.params.id),
  });
}
