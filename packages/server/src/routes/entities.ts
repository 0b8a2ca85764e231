import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { requirePrincipalAccess } from '../http/authenticate.ts';
import { createEntity } from '../services/entities/create-entity.ts';
import { getEntity } from '../services/entities/get-entity.ts';
import { listEntities } from '../services/entities/list-entities.ts';
import { setEntityState } from '../services/entities/set-entity-state.ts';
import { tombstoneEntity } from '../services/entities/tombstone-entity.ts';
import { includesRunArtifacts } from '../services/conformance/run-artifacts.ts';
import { includeConformanceProperty } from './include-conformance-query.ts';
import { pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import { IdParams, Timestamp } from './schemas.ts';

const EntityType = Type.Union([Type.Literal('person'), Type.Literal('organisation'), Type.Literal('agent')]);
const EntityState = Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('tombstoned')]);

const Entity = Type.Object({
  entity_id: Type.String({ description: '`ns:entity:<type>:<id>`' }),
  type: EntityType,
  display_name: Type.Union([Type.String(), Type.Null()]),
  public_key_jwk: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  key_thumbprint: Type.Union([Type.String(), Type.Null()]),
  state: EntityState,
  time_zone: Type.Optional(
    Type.String({
      description: 'IANA time zone of the local time rule packs read (`facts.local_time`); UTC when absent',
    }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const CreateEntityBody = Type.Object(
  {
    type: EntityType,
    id: Type.Optional(
      Type.String({ description: 'caller-chosen local id, `[A-Za-z0-9._-]{1,128}`; minted when omitted' }),
    ),
    display_name: Type.String({ minLength: 1, maxLength: 256 }),
    public_key_jwk: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'Ed25519 public JWK (OKP)' }),
    ),
    time_zone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'IANA time zone (`Europe/Paris`) in which rule packs read the principal\u2019s local time (`facts.local_time`); ' +
          'UTC when absent. Fixed at registration; restated by `ns.entity.created`.',
      }),
    ),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    ...pageQueryProperties,
    ...includeConformanceProperty,
    type: Type.Optional(EntityType),
    state: Type.Optional(EntityState),
  },
  { additionalProperties: false },
);

export async function entityRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['entities'];

  r.post('/v1/entities', {
    config: { roles: ['admin'], errors: ['invalid_id', 'conflict'] },
    schema: {
      tags,
      summary: 'Register a person, organisation or agent',
      operationId: 'createEntity',
      description:
        'Creates the entity `ns:entity:<type>:<id>` in state `active` and records `ns.entity.created`. `id` is yours ' +
        'to choose (a UUIDv7 is minted when omitted); an existing id is 409 `conflict`. An agent that signs its ' +
        'requests, or a delegator that signs its consent, registers its Ed25519 `public_key_jwk` here.',
      body: CreateEntityBody,
      response: { 201: Entity },
    },
    handler: async (req, reply) => reply.code(201).send(await createEntity(ctx, req.credential, req.body)),
  });

  r.get('/v1/entities', {
    config: { roles: ['admin', 'auditor'] },
    schema: {
      tags,
      summary: 'List entities',
      operationId: 'listEntities',
      description:
        'Entities in creation order, a page at a time (`limit`, then `cursor` = the `next_cursor` of the previous ' +
        'page; `null` when there is no more). Filter by `type` and `state`. Tombstoned entities are listed, without ' +
        'their personal data. What conformance-kit runs created is left out unless `include_conformance=true`.',
      querystring: ListQuery,
      response: { 200: pageSchema(Entity) },
    },
    handler: async (req) =>
      listEntities(ctx, pageRequest(req.query), {
        type: req.query.type,
        state: req.query.state,
        includeConformance: includesRunArtifacts(req.query),
      }),
  });

  r.get('/v1/entities/:id', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'Read an entity',
      operationId: 'getEntity',
      description:
        'One entity by its id (`ns:human:<id>` and `ns:agent:<id>` are accepted as aliases). A principal credential ' +
        'reads only its own principal (403 otherwise). Resolves the principal and actor nodes of a decision map.',
      params: IdParams,
      response: { 200: Entity },
    },
    handler: async (req) => {
      const entity = await getEntity(ctx, req.params.id);
      if (req.credential?.role === 'principal') requirePrincipalAccess(req.credential, entity.entity_id);
      return entity;
    },
  });

  for (const [verb, target] of [
    ['suspend', 'suspended'],
    ['activate', 'active'],
  ] as const) {
    r.post(`/v1/entities/:id/${verb}`, {
      config: { roles: ['admin'], errors: ['conflict'] },
      schema: {
        tags,
        summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} an entity`,
        operationId: `${verb}Entity`,
        description:
          verb === 'suspend'
            ? 'Sets the entity `suspended` and records `ns.entity.suspended`: from the next request, every ' +
              'authorization it takes part in (as agent or principal) is denied, and its grants stay as they are. ' +
              'Idempotent; a tombstoned entity is 409 `conflict`.'
            : 'Sets a suspended entity `active` again and records `ns.entity.activated`: its grants apply again ' +
              'from the next request. Idempotent; a tombstoned entity is 409 `conflict` (erasure is final).',
        params: IdParams,
        response: { 200: Entity },
      },
      handler: async (req) => setEntityState(ctx, req.credential, req.params.id, target),
    });
  }

  r.delete('/v1/entities/:id', {
    config: { roles: ['admin'], errors: ['conflict'] },
    schema: {
      tags,
      summary: 'Tombstone an entity (right to erasure): its personal data goes, the audit chain stays valid',
      operationId: 'deleteEntity',
      description:
        'Erases the personal data of the entity (and of its card tokens for a principal), revokes its principal ' +
        'credentials and sets it `tombstoned` for good, in one unit with `ns.entity.tombstoned`. Its decisions, ' +
        'evidence packs and audit entries stay and still verify (docs/audit.md, "Erasure"); every later ' +
        'authorization naming it is denied. Idempotent: a tombstoned entity is answered as it is.',
      params: IdParams,
      response: { 200: Entity },
    },
    handler: async (req) => tombstoneEntity(ctx, req.credential, req.params.id),
  });
}
