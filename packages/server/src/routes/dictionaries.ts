/**
 * Dictionaries (CONTRACT section 19): the shipped controlled vocabularies (seeded at start) and an operator's own,
 * drafted then published like rule packs. Any authenticated role reads.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { draftDocument } from '../services/policy/draft-document.ts';
import { nameParam, versionParam } from '../services/policy/policy-ids.ts';
import { publishDocument } from '../services/policy/publish-document.ts';
import { dictionaryTerm, documentVersion, documentVersions, listDocuments } from '../services/policy/read-policy.ts';
import { encodeCursor, pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import {
  AnyDocument,
  DocumentState,
  DocumentSummary,
  DocumentVersions,
  NameParams,
  VersionParams,
  policyReaders,
} from './policy-schemas.ts';

const TermParams = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    code: Type.String({ minLength: 1, maxLength: 128, description: 'the term code, e.g. `5411`' }),
  },
  { additionalProperties: false },
);

const Term = Type.Object(
  {
    dictionary_id: Type.String(),
    version: Type.String(),
    term: Type.Object({ code: Type.String(), label: Type.String() }, { additionalProperties: true }),
  },
  { additionalProperties: false },
);

export async function dictionaryRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['policy'];
  const version = (params: { name: string; version: string }) =>
    [nameParam('dictionary', params.name), versionParam(params.version)] as const;

  r.post('/v1/dictionaries', {
    config: { roles: ['admin'], errors: ['conflict'] },
    schema: {
      tags,
      summary: 'Store a draft dictionary version (a full `ns.dictionary.v1` document)',
      operationId: 'createDictionaryDraft',
      description:
        'Validates and stores the document as a draft of its `dictionary_id`@`version` (replacing an earlier draft ' +
        'of that version; a published version never changes: 409). Records `ns.dictionary.drafted`.',
      body: AnyDocument('ns.dictionary.v1'),
      response: { 201: DocumentSummary },
    },
    handler: async (req, reply) =>
      reply.code(201).send(await draftDocument(ctx, req.credential, 'dictionary', req.body as Record<string, unknown>)),
  });

  r.get('/v1/dictionaries', {
    config: { roles: policyReaders },
    schema: {
      tags,
      summary: 'Every dictionary version, in storage order',
      operationId: 'listDictionaries',
      description:
        'The shipped dictionaries (seeded at start, origin `shipped`) and operators’ own, every version, filtered by ' +
        '`state`, a page at a time.',
      querystring: Type.Object(
        { ...pageQueryProperties, state: Type.Optional(DocumentState) },
        { additionalProperties: false },
      ),
      response: { 200: pageSchema(DocumentSummary) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const out = await listDocuments(ctx, 'dictionary', { ...page, state: req.query.state });
      return { items: out.items, next_cursor: out.full && out.lastSeq !== null ? encodeCursor(out.lastSeq) : null };
    },
  });

  r.get('/v1/dictionaries/:name', {
    config: { roles: policyReaders },
    schema: {
      tags,
      summary: 'The versions of one dictionary',
      operationId: 'getDictionaryVersions',
      description: 'Every version of the dictionary, oldest first, with its state, origin and digest.',
      params: NameParams,
      response: { 200: DocumentVersions },
    },
    handler: async (req) => documentVersions(ctx, 'dictionary', nameParam('dictionary', req.params.name)),
  });

  r.get('/v1/dictionaries/:name/versions/:version', {
    config: { roles: policyReaders, errors: ['audit_unavailable'] },
    schema: {
      tags,
      summary: 'One dictionary version: the document exactly as stored (signed once published)',
      operationId: 'getDictionaryVersion',
      description:
        'The `ns.dictionary.v1` document: a draft as given, a published version as the exact signed RFC 8785 bytes ' +
        '(checked first: an edited row is refused with 503 `audit_unavailable`). Headers `aar-policy-state`, ' +
        '`aar-policy-origin`, `etag` (the digest).',
      params: VersionParams,
      response: { 200: AnyDocument('ns.dictionary.v1') },
    },
    handler: async (req, reply) => {
      const row = await documentVersion(ctx, 'dictionary', ...version(req.params));
      reply.header('aar-policy-state', row.state).header('aar-policy-origin', row.origin);
      if (row.digest) reply.header('etag', `"${row.digest}"`);
      const text: unknown = row.document;
      return reply.type('application/json; charset=utf-8').send(text as Record<string, unknown>);
    },
  });

  r.post('/v1/dictionaries/:name/versions/:version/publish', {
    config: { roles: ['admin'], errors: ['conflict'] },
    schema: {
      tags,
      summary: 'Publish a draft dictionary: signed by the service, immutable',
      operationId: 'publishDictionary',
      description:
        'Validates the draft again, signs it (CONTRACT section 4) and stores exactly the signed bytes with their ' +
        '`digest`; a published version never changes. Records `ns.dictionary.published`.',
      params: VersionParams,
      response: { 200: DocumentSummary },
    },
    handler: async (req) => publishDocument(ctx, req.credential, 'dictionary', ...version(req.params)),
  });

  r.get('/v1/dictionaries/:name/terms/:code', {
    config: { roles: policyReaders, errors: ['audit_unavailable'] },
    schema: {
      tags,
      summary: 'One term of the latest published version of a dictionary',
      operationId: 'getDictionaryTerm',
      description:
        'The term `code` of the latest published version (or of `version`), with its label and attributes. 404 for ' +
        'an unknown term.',
      params: TermParams,
      querystring: Type.Object(
        {
          version: Type.Optional(Type.String({ maxLength: 120, description: 'a given version instead of the latest' })),
        },
        { additionalProperties: false },
      ),
      response: { 200: Term },
    },
    handler: async (req) =>
      dictionaryTerm(
        ctx,
        nameParam('dictionary', req.params.name),
        req.params.code,
        req.query.version === undefined ? undefined : versionParam(req.query.version, '/query/version'),
      ),
  });
}
