import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { listEvents } from '../services/events/list-events.ts';
import { pageRequest, pageSchema } from './pagination.ts';

const Envelope = Type.Object({}, { additionalProperties: true, description: 'a signed `ns.webhook.v1` envelope' });

const EventsQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'the next_cursor of the previous page; omit to start at the beginning',
      }),
    ),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
    event_type: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);

export async function eventRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/v1/events', {
    config: { roles: ['admin', 'auditor'] },
    schema: {
      tags: ['events'],
      summary: 'Every event envelope, in commit order, for pull consumers',
      querystring: EventsQuery,
      response: { 200: pageSchema(Envelope) },
    },
    handler: async (req) =>
      listEvents(ctx, pageRequest({ limit: req.query.limit, cursor: req.query.after }), req.query.event_type),
  });
}
