import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { resolveFeedPosition } from '../services/events/feed-position.ts';
import { listEvents } from '../services/events/list-events.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PAGE_SIZE_PATTERN, pageSize } from './pagination.ts';

const Envelope = Type.Object({}, { additionalProperties: true, description: 'a signed `ns.webhook.v1` envelope' });

const EventsQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'where to resume: the `next_cursor` of an earlier page, or the `event_id` (`ns:event:<uuid>`) of the last ' +
          'event processed; omit to start at the beginning',
      }),
    ),
    limit: Type.Optional(
      Type.String({
        pattern: PAGE_SIZE_PATTERN,
        description: `page size, an integer from 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`,
      }),
    ),
    event_type: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);

const EventsPage = Type.Object({
  items: Type.Array(Envelope),
  next_cursor: Type.String({
    description: 'the position reached, always present: pass it as `after` to resume, also at the end of the feed',
  }),
  has_more: Type.Boolean({ description: 'another page is already available after `next_cursor`' }),
});

export async function eventRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/v1/events', {
    config: { roles: ['admin', 'auditor'], errors: ['conflict'] },
    schema: {
      tags: ['events'],
      summary: 'Every event envelope, in commit order, for pull consumers',
      operationId: 'listEvents',
      description:
        'The signed `ns.webhook.v1` envelopes of every event, in the order they committed, for consumers that ' +
        'pull instead of receiving webhooks; `event_type` narrows it to one type. Resume with `after` = the ' +
        '`next_cursor` of the last page (or the last `event_id` processed): no event is skipped or repeated. An ' +
        '`after` naming an event that is not visible yet is 409 `conflict`: retry it.',
      querystring: EventsQuery,
      response: { 200: EventsPage },
    },
    handler: async (req) => {
      const limit = pageSize(req.query.limit);
      const afterSeq = await resolveFeedPosition(ctx, req.query.after);
      return listEvents(ctx, { limit, afterSeq }, req.query.event_type);
    },
  });
}
