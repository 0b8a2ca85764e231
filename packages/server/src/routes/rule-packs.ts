/**
 * Rule packs (CONTRACT section 19, docs/policy.md): drafts written by an administrator, tested, published (signed,
 * immutable), retired. Any authenticated role reads. A published version's document is served as the exact signed
 * bytes stored (checked first: a row edited in the database is refused with 503, fail closed).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { draftDocument } from '../services/policy/draft-document.ts';
import { nameParam, versionParam } from '../services/policy/policy-ids.ts';
import { publishDocument } from '../services/policy/publish-document.ts';
import { documentVersion, documentVersions, listDocuments } from '../services/policy/read-policy.ts';
import { retireRulePack } from '../services/policy/retire-rule-pack.ts';
import { testRulePack } from '../services/policy/test-rule-pack.ts';
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

const TestReport = Type.Object(
  {
    passed: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    results: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          passed: Type.Boolean(),
          actual: Type.Object({ effect: Type.String(), reason: Type.Optional(Type.String()) }),
          expected: Type.Object({}, { additionalProperties: true }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    ...pageQueryProperties,
    state: Type.Optional(DocumentState),
    domain: Type.Optional(Type.Unsafe<'purchase' | 'generic'>({ type: 'string', enum: ['purchase', 'generic'] })),
  },
  { additionalProperties: false },
);

export async function rulePackRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['policy'];
  const version = (params: { name: string; version: string }) =>
    [nameParam('rule_pack', params.name), versionParam(params.version)] as const;

  r.post('/v1/rule-packs', {
    config: { roles: ['admin'], errors: ['conflict', 'reference_not_found'] },
    schema: {
      tags,
      summary: 'Store a draft rule pack version (a full `ns.rule_pack.v1` document)',
      operationId: 'createRulePackDraft',
      description:
        'Validates the document (the strict JsonLogic profile, at most 32 levels and 2,000 nodes per rule, 256 KiB ' +
        'per pack, declared reasons, known dictionaries, obligation types, stop conditions and taxonomy terms) and ' +
        'stores it as a draft of its `pack_id`@`version`, replacing an earlier draft of that version. Every problem ' +
        'is named by its JSON pointer into the document; nothing is written then. A published or retired version ' +
        'never changes (409). A `signature` member is dropped: the service signs at publish. Records ' +
        '`ns.rule_pack.drafted`.',
      body: AnyDocument('ns.rule_pack.v1'),
      response: { 201: DocumentSummary },
    },
    handler: async (req, reply) =>
      reply.code(201).send(await draftDocument(ctx, req.credential, 'rule_pack', req.body as Record<string, unknown>)),
  });

  r.get('/v1/rule-packs', {
    config: { roles: policyReaders },
    schema: {
      tags,
      summary: 'Every rule pack version, in storage order',
      operationId: 'listRulePacks',
      description: 'Drafts, published and retired versions (filter with `state`, `domain`), a page at a time.',
      querystring: ListQuery,
      response: { 200: pageSchema(DocumentSummary) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const out = await listDocuments(ctx, 'rule_pack', { ...page, state: req.query.state, domain: req.query.domain });
      return { items: out.items, next_cursor: out.full && out.lastSeq !== null ? encodeCursor(out.lastSeq) : null };
    },
  });

  r.get('/v1/rule-packs/:name', {
    config: { roles: policyReaders },
    schema: {
      tags,
      summary: 'The versions of one rule pack',
      operationId: 'getRulePackVersions',
      description:
        'Every version of the pack, oldest first, with its state, origin and digest. 404 for a name without one.',
      params: NameParams,
      response: { 200: DocumentVersions },
    },
    handler: async (req) => documentVersions(ctx, 'rule_pack', nameParam('rule_pack', req.params.name)),
  });

  r.get('/v1/rule-packs/:name/versions/:version', {
    config: { roles: policyReaders, errors: ['audit_unavailable'] },
    schema: {
      tags,
      summary: 'One rule pack version: the document exactly as stored (signed once published)',
      operationId: 'getRulePackVersion',
      description:
        'The `ns.rule_pack.v1` document: a draft as given, a published or retired version as the exact RFC 8785 ' +
        'bytes the service signed (its signature and digest are checked first: an edited row is refused with 503 ' +
        '`audit_unavailable`). Headers: `aar-policy-state`, `aar-policy-origin`, and `etag` the digest.',
      params: VersionParams,
      response: { 200: AnyDocument('ns.rule_pack.v1') },
    },
    handler: async (req, reply) => {
      const row = await documentVersion(ctx, 'rule_pack', ...version(req.params));
      reply.header('aar-policy-state', row.state).header('aar-policy-origin', row.origin);
      if (row.digest) reply.header('etag', `"${row.digest}"`);
      // the stored bytes themselves: a string payload skips serialisation
      const text: unknown = row.document;
      return reply.type('application/json; charset=utf-8').send(text as Record<string, unknown>);
    },
  });

  r.post('/v1/rule-packs/:name/versions/:version/test', {
    config: { roles: ['admin', 'auditor'], errors: ['reference_not_found', 'reference_invalid'] },
    schema: {
      tags,
      summary: "Run a rule pack version's own tests",
      operationId: 'testRulePack',
      description:
        'Evaluates each of the pack’s tests (its `context` with the dictionaries it declares) exactly as decide ' +
        'evaluates the pack, and compares the outcome with `expect`. Writes nothing.',
      params: VersionParams,
      response: { 200: TestReport },
    },
    handler: async (req) => testRulePack(ctx, ...version(req.params)),
  });

  r.post('/v1/rule-packs/:name/versions/:version/publish', {
    config: { roles: ['admin'], errors: ['conflict', 'reference_not_found', 'reference_invalid'] },
    schema: {
      tags,
      summary: 'Publish a draft: tests must pass; the service signs it and it never changes again',
      operationId: 'publishRulePack',
      description:
        'Checks the draft again against published content (its dictionaries must be published), runs its tests ' +
        '(one failing refuses it: 422 naming each `/tests/<i>`), signs it (CONTRACT section 4) and stores exactly ' +
        'the signed bytes with their `digest`. Records `ns.rule_pack.published`.',
      params: VersionParams,
      response: { 200: DocumentSummary },
    },
    handler: async (req) => publishDocument(ctx, req.credential, 'rule_pack', ...version(req.params)),
  });

  r.post('/v1/rule-packs/:name/versions/:version/retire', {
    config: { roles: ['admin'], errors: ['conflict'] },
    schema: {
      tags,
      summary: 'Retire a published version: deactivates its activations in the same transaction',
      operationId: 'retireRulePack',
      description:
        'A retired version can no longer be activated; every active activation of it is deactivated at once ' +
        '(`ns.rule_activation.deactivated` each). Records `ns.rule_pack.retired`.',
      params: VersionParams,
      response: { 200: DocumentSummary },
    },
    handler: async (req) => retireRulePack(ctx, req.credential, ...version(req.params)),
  });
}
