/**
 * GET /v1/event-types: the event catalogue (CONTRACT section 9), served from core's data (core/src/events).
 * Public, like the JWKS and the OpenAPI document: it describes the contract, the same on every deployment, and holds
 * no data of this one; a webhook receiver builds its validators from it before it holds any credential.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EVENT_FAMILIES, WEBHOOK_ENVELOPE_SCHEMA } from '@aar/core';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../app-context.ts';

const JsonSchemaDocument = (description: string) =>
  Type.Object({}, { additionalProperties: true, description: `${description} (JSON Schema 2020-12)` });

const Presence = Type.Union([Type.Literal('always'), Type.Literal('sometimes'), Type.Literal('never')], {
  description: '`always` an id, `never` null, `sometimes` either',
});

const EventType = Type.Object(
  {
    event_type: Type.String({ description: '`ns.<family>.<name>`' }),
    family: Type.String({ description: 'the second segment of `event_type`' }),
    description: Type.String({ description: 'when the service emits it' }),
    subject_ref: Type.Object(
      { description: Type.String(), pattern: Type.String({ description: 'anchored regular expression' }) },
      { additionalProperties: false, description: 'what `subject_ref` names' },
    ),
    reason_codes: Type.Array(Type.String(), { description: 'every `reason_code` it is emitted with' }),
    principal_entity_id: Presence,
    actor_entity_id: Presence,
    named_in_spec: Type.Boolean({ description: 'one of the five types the specification names' }),
    data_schema: JsonSchemaDocument('the schema of `data`'),
  },
  { additionalProperties: false },
);

const Family = Type.Object(
  { family: Type.String(), description: Type.String(), types: Type.Array(EventType) },
  { additionalProperties: false },
);

const Catalogue = Type.Object(
  {
    envelope_schema: JsonSchemaDocument('the `ns.webhook.v1` envelope every event travels in'),
    families: Type.Array(Family),
  },
  { additionalProperties: false },
);

const CatalogueQuery = Type.Object(
  {
    family: Type.Optional(
      Type.Union(
        EVENT_FAMILIES.map((f) => Type.Literal(f.family)),
        { description: 'only this family' },
      ),
    ),
  },
  { additionalProperties: false },
);

// a plain copy of core's read-only data, made once: the answer never changes while the process runs
const FAMILIES: Static<typeof Family>[] = EVENT_FAMILIES.map((f) => ({
  family: f.family,
  description: f.description,
  types: f.types.map((t) => ({ ...t, subject_ref: { ...t.subject_ref }, reason_codes: [...t.reason_codes] })),
}));

export async function eventTypeRoutes(app: FastifyInstance, _ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/v1/event-types', {
    config: { public: true },
    schema: {
      tags: ['events'],
      summary: 'The event catalogue: every event type by family, its reason codes and the JSON Schema of its data',
      operationId: 'listEventTypes',
      description:
        'Every event type the service emits, grouped by family (`ns.<family>.<type>`), with when it is emitted, ' +
        'the `reason_code`s it carries, what its `subject_ref` names and the JSON Schema of its `data`, plus the ' +
        'schema of the `ns.webhook.v1` envelope. The same on every deployment, hence public: a webhook receiver ' +
        'builds its validators from it. `family` narrows it to one family.',
      security: [],
      querystring: CatalogueQuery,
      response: { 200: Catalogue },
    },
    handler: async (req, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      const family = req.query.family;
      return {
        envelope_schema: WEBHOOK_ENVELOPE_SCHEMA,
        families: family === undefined ? FAMILIES : FAMILIES.filter((f) => f.family === family),
      };
    },
  });
}
