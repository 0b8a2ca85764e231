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
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  { ...pageQueryProperties, type: Type.Optional(EntityType), state: Type.Optional(EntityState) },
  { additionalProperties: false },
);

export async function entityRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['entities'];

  r.post('/v1/entities', {
    config: { roles: ['admin'] },
    schema: {
      tags,
      summary: 'Register a person, organisation or agent',
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
      querystring: ListQuery,
      response: { 200: pageSchema(Entity) },
    },
    handler: async (req) => listEntities(ctx, pageRequest(req.query), { type: req.query.type, state: req.query.state }),
  });

  r.get('/v1/entities/:id', {
    config: { roles: ['admin', 'auditor', 'principal'] },
    schema: { tags, summary: 'Read an entity', params: IdParams, response: { 200: Entity } },
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
      config: { roles: ['admin'] },
      schema: {
        tags,
        summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} an entity`,
        params: IdParams,
        response: { 200: Entity },
      },
      handler: async (req) => setEntityState(ctx, req.credential, req.params.id, target),
    });
  }

  r.delete('/v1/entities/:id', {
    config: { roles: ['admin'] },
    schema: {
      tags,
      summary: 'Tombstone an entity (right to erasure): its personal data goes, the audit chain stays valid',
      params: IdParams,
      response: { 200: Entity },
    },
    handler: async (req) => tombstoneEntity(ctx, req.credential, req.params.id),
  });
}
