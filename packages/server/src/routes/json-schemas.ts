/**
 * GET /v1/schemas and GET /v1/schemas/{name} (CONTRACT section 16): the JSON Schema (2020-12) of every `ns.*.v1`
 * document. Public, like the event catalogue and the JWKS: they describe the contract, the same on every deployment,
 * and hold no data of this one; a verifier builds its validators before it holds any credential.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { getSchema, schemaCatalogue } from '../services/schemas/schema-catalogue.ts';

const SchemaListItem = Type.Object(
  {
    name: Type.String({ description: '`ns.<document>.v<major>`' }),
    // not `$id`: a property of that name reads as a schema id to OpenAPI tooling
    id: Type.String({ description: 'the schema `$id` (`urn:aar:schema:<name>`), which `$ref`s between schemas use' }),
    title: Type.String(),
    description: Type.String(),
    href: Type.String({ description: 'where this service serves it: `/v1/schemas/<name>`' }),
  },
  { additionalProperties: false },
);

const SchemaParams = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 128, description: 'a name from the list, e.g. `ns.webhook.v1`' }) },
  { additionalProperties: false },
);

export async function jsonSchemaRoutes(app: FastifyInstance, _ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['schemas'];

  r.get('/v1/schemas', {
    config: { public: true },
    schema: {
      tags,
      summary: 'The JSON Schemas of every `ns.*.v1` document',
      operationId: 'listSchemas',
      description:
        'Every document the service emits or accepts (decision maps, evidence packs, delegation chains, ' +
        'checkpoints, webhook envelopes, proof bundles…) has a JSON Schema 2020-12; this lists them by name. ' +
        'Schemas refer to each other by `$id`: load them all into one validator. Public, the same on every deployment.',
      security: [],
      response: { 200: Type.Object({ items: Type.Array(SchemaListItem) }, { additionalProperties: false }) },
    },
    handler: async (_req, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return {
        items: [...schemaCatalogue().values()].map((s) => ({
          name: s.name,
          id: s.$id,
          title: s.title,
          description: s.description,
          href: `/v1/schemas/${s.name}`,
        })),
      };
    },
  });

  r.get('/v1/schemas/:name', {
    config: { public: true },
    schema: {
      tags,
      summary: 'One JSON Schema (2020-12), e.g. `/v1/schemas/ns.webhook.v1`',
      operationId: 'getSchema',
      description:
        'The schema document exactly as the release ships it (`application/schema+json`). An unknown name is 404.',
      security: [],
      params: SchemaParams,
      response: { 200: Type.Object({}, { additionalProperties: true, description: 'a JSON Schema 2020-12 document' }) },
    },
    handler: async (req, reply) => {
      const entry = getSchema(req.params.name);
      reply.header('cache-control', 'public, max-age=300');
      // the file's own bytes: a string payload skips serialisation (the schema above only documents it)
      const text: unknown = entry.text;
      return reply.type('application/schema+json; charset=utf-8').send(text as Record<string, unknown>);
    },
  });
}
