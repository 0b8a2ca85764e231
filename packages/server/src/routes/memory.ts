/**
 * Governed agent memory (CONTRACT section 22, docs/memory.md), opt-in: the routes answer 403
 * `capability_not_enabled` unless AAR_OPT_IN names `memory`, and each needs its token scope (http/token-scopes.ts).
 * Every operation is `x-preview: true`.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { credentialOf } from '../http/authenticate.ts';
import { eraseMemoryRecord } from '../services/memory/erase-memory-record.ts';
import { MAX_CONTENT_BYTES } from '../services/memory/memory-content.ts';
import { getMemoryRecord, listMemoryRecords, listTombstones } from '../services/memory/read-memory-records.ts';
import { RETENTION_DAYS } from '../services/memory/retention.ts';
import { writeMemoryRecord } from '../services/memory/write-memory-record.ts';
import { pageQueryProperties, pageRequest } from './pagination.ts';
import { IdParams } from './schemas.ts';

const PREVIEW =
  'PREVIEW (SPEC "Preview"): governed agent memory is an opt-in capability (AAR_OPT_IN=memory) and may change ' +
  'incompatibly; its records are `ns.memory_record.v1` (schema served at /v1/schemas). ';

const RETENTION_TEXT = Object.entries(RETENTION_DAYS)
  .map(([c, d]) => `${c} ${d} days`)
  .join(', ');

const Classification = Type.Union(
  [Type.Literal('public'), Type.Literal('internal'), Type.Literal('confidential'), Type.Literal('restricted')],
  { description: `fixes the retention: ${RETENTION_TEXT}` },
);
const State = Type.Union([Type.Literal('active'), Type.Literal('erased'), Type.Literal('purged')]);

const RecordDocument = Type.Unknown({
  description: 'the signed `ns.memory_record.v1` record form (no content; `content_digest` binds it)',
});
const TombstoneDocument = Type.Unknown({ description: 'the signed `ns.memory_record.v1` tombstone form, or null' });

const Verification = Type.Object({
  valid: Type.Boolean({ description: 'every check below passed' }),
  record_signature: Type.Union([Type.Literal('valid'), Type.Literal('invalid')]),
  record_matches_row: Type.Boolean(),
  content: Type.Union([Type.Literal('intact'), Type.Literal('tampered'), Type.Literal('purged')], {
    description: '`tampered`: the stored content does not hash to `content_digest` (it is withheld)',
  }),
  tombstone_signature: Type.Union([Type.Literal('valid'), Type.Literal('invalid'), Type.Null()]),
  key_id: Type.Union([Type.String(), Type.Null()]),
});

const MemoryRecordView = Type.Object({
  memory_record_id: Type.String({ description: '`ns:memory_record:<uuid>`' }),
  state: State,
  record: RecordDocument,
  content: Type.Unknown({ description: 'the content as written, while kept; null once erased or purged' }),
  content_salt: Type.Union([Type.String(), Type.Null()], {
    description: 'base64url salt: `content_digest` = SHA-256 of RFC 8785 `{ content, salt }`, base64url',
  }),
  tombstone: TombstoneDocument,
  verification: Type.Optional(Verification),
});

const WriteBody = Type.Object(
  {
    agent_entity_id: Type.String({ maxLength: 256, description: 'the writing agent, `ns:entity:agent:<id>`' }),
    grant_id: Type.String({
      maxLength: 256,
      description: 'an active grant the agent holds; its principal owns the record',
    }),
    classification: Classification,
    content: Type.Unknown({
      description: `any JSON value but null, at most ${MAX_CONTENT_BYTES} bytes as RFC 8785 JSON; no card number`,
    }),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    ...pageQueryProperties,
    principal_entity_id: Type.Optional(Type.String({ maxLength: 256 })),
    agent_entity_id: Type.Optional(Type.String({ maxLength: 256 })),
    classification: Type.Optional(Classification),
    state: Type.Optional(State),
  },
  { additionalProperties: false },
);

const TombstoneQuery = Type.Object(
  { ...pageQueryProperties, principal_entity_id: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: false },
);

const ChainVerification = Type.Object({
  valid: Type.Boolean(),
  length: Type.Integer(),
  tip_digest: Type.Union([Type.String(), Type.Null()]),
  findings: Type.Array(
    Type.Object({
      sequence: Type.Integer(),
      tombstone_id: Type.Optional(Type.String()),
      problem: Type.String(),
    }),
  ),
});

export async function memoryRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['memory'];
  const preview = { 'x-preview': true };
  const scopeErrors = ['capability_not_enabled', 'scope_missing'] as const;

  r.post('/v1/memory/records', {
    config: {
      roles: ['runtime'],
      scope: 'memory.write',
      // an Idempotency-Key record must not keep the content past an erasure: stored (and replayed) without it
      oneTimeSecrets: ['content', 'content_salt'],
      errors: [...scopeErrors, 'invalid_signature', 'pan_refused', 'reference_not_found', 'reference_invalid'],
    },
    schema: {
      ...preview,
      tags,
      summary: 'Write a signed memory record under a grant (preview)',
      operationId: 'writeMemoryRecord',
      description:
        PREVIEW +
        'The agent writes under an active grant it holds (422 `reference_invalid` otherwise); the grant\u2019s principal ' +
        'owns the record. Signed by the agent with RFC 9421 exactly as authorize (400 `invalid_signature`; not when ' +
        'AAR_REQUIRE_SIGNED_REQUESTS is off). A card number anywhere in `content` is 400 `pan_refused` naming its ' +
        'path, and nothing is stored. The answer is the signed record (service key), the content and its salt ' +
        '(an idempotent replay omits both, `secret_omitted: true`: the Idempotency-Key record never keeps content). ' +
        'Records `ns.memory.written`. Needs the `memory.write` scope.',
      body: WriteBody,
      response: {
        201: Type.Object({
          ...MemoryRecordView.properties,
          content: Type.Optional(MemoryRecordView.properties.content),
          content_salt: Type.Optional(MemoryRecordView.properties.content_salt),
          secret_omitted: Type.Optional(
            Type.Literal(true, {
              description:
                'present only on an idempotent replay: the content is in the first answer only (GET the record)',
            }),
          ),
        }),
      },
    },
    handler: async (req, reply) => reply.code(201).send(await writeMemoryRecord(ctx, credentialOf(req), req, req.body)),
  });

  r.get('/v1/memory/records', {
    config: { roles: ['principal', 'runtime', 'auditor'], scope: 'memory.read', errors: [...scopeErrors] },
    schema: {
      ...preview,
      tags,
      summary: 'List memory records (preview)',
      operationId: 'listMemoryRecords',
      description:
        PREVIEW +
        'Records in write order, a page at a time, with their content while kept and their tombstone once ended. A ' +
        'principal credential sees its own principal\u2019s records only (naming another is 403). Filters: ' +
        '`principal_entity_id`, `agent_entity_id`, `classification`, `state`. Needs the `memory.read` scope.',
      querystring: ListQuery,
      response: {
        200: Type.Object({
          items: Type.Array(MemoryRecordView),
          next_cursor: Type.Union([Type.String(), Type.Null()]),
        }),
      },
    },
    handler: async (req) => listMemoryRecords(ctx, credentialOf(req), req.query, pageRequest(req.query)),
  });

  r.get('/v1/memory/records/:id', {
    config: {
      roles: ['principal', 'runtime', 'auditor'],
      scope: 'memory.read',
      errors: [...scopeErrors, 'invalid_id'],
    },
    schema: {
      ...preview,
      tags,
      summary: 'Read one memory record, verified (preview)',
      operationId: 'getMemoryRecord',
      description:
        PREVIEW +
        'The record, its content while kept, its tombstone once ended, and `verification`: the record\u2019s signature ' +
        'checked against the JWKS, the stored columns against the record, the content against `content_digest` ' +
        '(content that does not match is withheld and reported `tampered`). Another principal\u2019s record is 404 ' +
        'for a principal credential. Needs the `memory.read` scope.',
      params: IdParams,
      response: { 200: MemoryRecordView },
    },
    handler: async (req) => getMemoryRecord(ctx, credentialOf(req), req.params.id),
  });

  r.delete('/v1/memory/records/:id', {
    config: { roles: ['principal'], scope: 'memory.write', errors: [...scopeErrors, 'invalid_id'] },
    schema: {
      ...preview,
      tags,
      summary: 'Erase a memory record: content purged, a chained tombstone stays (preview)',
      operationId: 'eraseMemoryRecord',
      description:
        PREVIEW +
        'By the principal the record belongs to (another principal\u2019s record is 404) or an admin: the content is ' +
        'deleted, a signed tombstone naming the record\u2019s digest is appended to the principal\u2019s chain, and ' +
        '`ns.memory.erased` is recorded. Erasing an ended record answers it as it is. Needs the `memory.write` scope.',
      params: IdParams,
      response: { 200: MemoryRecordView },
    },
    handler: async (req) => eraseMemoryRecord(ctx, credentialOf(req), req.params.id),
  });

  r.get('/v1/memory/tombstones', {
    config: { roles: ['principal', 'runtime', 'auditor'], scope: 'memory.read', errors: [...scopeErrors] },
    schema: {
      ...preview,
      tags,
      summary: 'A principal\u2019s tombstone chain (preview)',
      operationId: 'listMemoryTombstones',
      description:
        PREVIEW +
        'The principal\u2019s signed tombstones in chain order (`sequence` 1, 2, ...; each names the digest of the one ' +
        'before), a page at a time; the first page also carries the service\u2019s verification of the whole chain ' +
        '(up to 10,000 tombstones; docs/memory.md says how to verify it offline). A principal credential reads its ' +
        'own chain; other roles name `principal_entity_id`. Needs the `memory.read` scope.',
      querystring: TombstoneQuery,
      response: {
        200: Type.Object({
          principal_entity_id: Type.String(),
          items: Type.Array(TombstoneDocument),
          next_cursor: Type.Union([Type.String(), Type.Null()]),
          verification: Type.Optional(ChainVerification),
        }),
      },
    },
    handler: async (req) =>
      listTombstones(ctx, credentialOf(req), req.query.principal_entity_id, pageRequest(req.query)),
  });
}
