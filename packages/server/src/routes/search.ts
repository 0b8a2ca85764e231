/**
 * Signed search results (preview, CONTRACT section 22, docs/search.md): opt-in capability `search` (AAR_OPT_IN),
 * scope `search.read` for every role (http/token-scopes.ts). `POST /v1/search` searches decisions, evidence packs,
 * memory records and listings the caller may see and signs what came back; `GET /v1/search/{id}` reads it again.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { credentialOf } from '../http/authenticate.ts';
import { readSearchResult } from '../services/search/read-search-result.ts';
import { runSearch } from '../services/search/run-search.ts';
import {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  MAX_QUERY_LENGTH,
  MEMORY_CLASSIFICATIONS,
  SEARCH_KINDS,
  type SearchBody,
} from '../services/search/search-request.ts';

const PREVIEW =
  'PREVIEW (SPEC "Preview"): signed search results may change incompatibly until their conformance suite is ' +
  'frozen; opt-in (`AAR_OPT_IN=search`), scope `search.read`. ';

const Kind = Type.Union([
  Type.Literal(SEARCH_KINDS[0]),
  Type.Literal(SEARCH_KINDS[1]),
  Type.Literal(SEARCH_KINDS[2]),
  Type.Literal(SEARCH_KINDS[3]),
]);

const SearchRequest = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_QUERY_LENGTH,
        description: 'text matched case-insensitively as a substring (docs/search.md says of what, per kind)',
      }),
    ),
    kinds: Type.Array(Kind, { minItems: 1, maxItems: SEARCH_KINDS.length, uniqueItems: true }),
    filters: Type.Optional(
      Type.Object(
        {
          principal_entity_id: Type.Optional(Type.String({ maxLength: 200 })),
          actor_entity_id: Type.Optional(Type.String({ maxLength: 200, description: 'the agent' })),
          decision: Type.Optional(Type.String({ maxLength: 32 })),
          reason: Type.Optional(Type.String({ maxLength: 128 })),
          since: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 instant, inclusive' })),
          until: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 instant, exclusive' })),
          classification: Type.Optional(
            Type.String({ maxLength: 32, description: `memory records: ${MEMORY_CLASSIFICATIONS.join(', ')}` }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    agent_entity_id: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'the agent the search is made for: recorded, and confines decisions, evidence and memory to it',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `per kind; default ${DEFAULT_LIMIT}` }),
    ),
  },
  { additionalProperties: false },
);

const Signature = Type.Object(
  { algorithm: Type.Literal('ed25519'), key_id: Type.String(), signature: Type.String() },
  { additionalProperties: false },
);
const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);

const SearchResult = Type.Object(
  {
    schema_version: Type.Literal('ns.search_result.v1'),
    preview: Type.Literal(true),
    search_result_id: Type.String(),
    issuer: Type.String(),
    searched_at: Type.String({ format: 'date-time' }),
    searched_by: Type.Object(
      {
        token_id: Type.String(),
        role: Type.String(),
        principal_entity_id: Nullable(Type.String()),
        agent_entity_id: Nullable(Type.String()),
      },
      { additionalProperties: false },
    ),
    request: Type.Object({}, { additionalProperties: true, description: 'the body exactly as received' }),
    request_digest: Type.String(),
    visibility: Type.Object(
      { principal_entity_id: Nullable(Type.String()), agent_entity_id: Nullable(Type.String()) },
      { additionalProperties: false },
    ),
    counts: Type.Array(
      Type.Object({ kind: Kind, returned: Type.Integer(), more: Type.Boolean() }, { additionalProperties: false }),
    ),
    results: Type.Array(
      Type.Object({ kind: Kind, id: Type.String(), digest: Type.String() }, { additionalProperties: false }),
    ),
    results_digest: Type.String(),
    signature: Signature,
  },
  { additionalProperties: false, description: '`ns.search_result.v1`, signed (CONTRACT section 4)' },
);

const SearchAnswer = Type.Object(
  {
    search_result: SearchResult,
    items: Type.Array(
      Type.Object(
        {
          kind: Kind,
          id: Type.String(),
          item: Type.Object({}, { additionalProperties: true, description: 'what the kind answers (docs/search.md)' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export async function searchRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['search'];
  const preview = { 'x-preview': true };
  const roles = ['runtime', 'auditor', 'principal'] as const;

  r.post('/v1/search', {
    config: {
      roles,
      scope: 'search.read',
      errors: ['invalid_request', 'invalid_id', 'forbidden', 'capability_not_enabled', 'scope_missing'],
    },
    schema: {
      ...preview,
      tags,
      summary: 'Search decisions, evidence packs, memory records and listings, and sign what came back (preview)',
      operationId: 'createSearch',
      description:
        PREVIEW +
        'Searches each of `kinds` (at most `limit` items each) among what the caller may see: a principal ' +
        'credential its own principal’s decisions, evidence packs and memory records (naming another principal is ' +
        '403); `agent_entity_id` confines them to that agent’s; listings are public to every `search.read` holder. ' +
        '`memory_records` also needs the `memory` capability and the `memory.read` scope. Answers the items and a ' +
        'signed, stored `ns.search_result.v1` naming the request exactly, the caller, the time, and each item’s ' +
        'id and `sha-256:` digest of its RFC 8785 bytes, so the agent can later prove what it saw.',
      body: SearchRequest,
      response: { 201: SearchAnswer },
    },
    handler: async (req, reply) =>
      reply.code(201).send(await runSearch(ctx, credentialOf(req), req.body as SearchBody)),
  });

  r.get('/v1/search/:id', {
    config: {
      roles,
      scope: 'search.read',
      errors: ['invalid_id', 'not_found', 'audit_unavailable', 'capability_not_enabled', 'scope_missing'],
    },
    schema: {
      ...preview,
      tags,
      summary: 'A stored signed search result, exactly as it was signed (preview)',
      operationId: 'getSearchResult',
      description:
        PREVIEW +
        'The `ns.search_result.v1` as stored: the RFC 8785 bytes that were signed, byte for byte. Readable by the ' +
        'token that searched, admin and auditor, and a principal credential of the principal it was confined to; ' +
        'anyone else gets 404.',
      params: Type.Object({ id: Type.String({ maxLength: 128 }) }, { additionalProperties: false }),
      response: { 200: SearchResult },
    },
    handler: async (req, reply) => {
      // the stored bytes as they are: a string payload skips serialisation (the schema above only documents it)
      const text = await readSearchResult(ctx, credentialOf(req), req.params.id);
      return reply.type('application/json; charset=utf-8').send(text as never);
    },
  });
}
