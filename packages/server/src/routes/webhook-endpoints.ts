import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { SECRET_OMITTED_DESCRIPTION } from '../http/one-time-secrets.ts';
import { createEndpoint, CONNECTOR_ID_PATTERN } from '../services/webhooks/create-endpoint.ts';
import { deleteEndpoint } from '../services/webhooks/delete-endpoint.ts';
import { endpointView } from '../services/webhooks/endpoint-view.ts';
import { listDeliveries } from '../services/webhooks/list-deliveries.ts';
import { readEndpoint } from '../services/webhooks/read-endpoint.ts';
import { replayEvents } from '../services/webhooks/replay-events.ts';
import { rotateSecret } from '../services/webhooks/rotate-secret.ts';
import { disableEndpoint, enableEndpoint } from '../services/webhooks/set-endpoint-state.ts';
import { updateEndpoint } from '../services/webhooks/update-endpoint.ts';
import { pageQueryProperties, pageRequest, PageQuery, pageSchema, toPage } from './pagination.ts';
import { IdParams, Timestamp } from './schemas.ts';

const Profile = Type.Union([Type.Literal('shared_secret'), Type.Literal('asymmetric'), Type.Literal('cose')]);
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https only (docs/webhooks.md, SSRF rules)' });
const EventTypes = Type.Array(Type.String({ maxLength: 200 }), {
  maxItems: 64,
  description: 'exact types (`ns.authority.revoked`) or families (`ns.decision.*`); omitted: every event',
});
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const Endpoint = Type.Object({
  endpoint_id: Type.String({ description: '`ns:webhook_endpoint:<uuid>`' }),
  url: Type.String(),
  profile: Profile,
  event_types: Nullable(Type.Array(Type.String())),
  description: Nullable(Type.String()),
  connector_id: Nullable(Type.String()),
  state: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  // a closed set; typed as the string the view carries
  disabled_reason: Type.Unsafe<string | null>({
    anyOf: [{ type: 'string', enum: ['admin', 'gone', 'failing'] }, { type: 'null' }],
    description: '`admin`, `gone` (answered 410) or `failing` (5 days)',
  }),
  previous_secret_expires_at: Nullable(Timestamp),
  failing_since: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const CreatedEndpoint = Type.Intersect([
  Endpoint,
  Type.Object({
    secret: Type.Optional(
      Type.String({
        description: 'the `whsec_` secret (shared_secret only): in the first answer only, never in a replay',
      }),
    ),
    secret_omitted: Type.Optional(Type.Literal(true, { description: SECRET_OMITTED_DESCRIPTION })),
  }),
]);

const CreateBody = Type.Object(
  {
    url: Url,
    profile: Profile,
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Type.String({ maxLength: 1024 })),
    connector_id: Type.Optional(Type.String({ maxLength: 160, pattern: CONNECTOR_ID_PATTERN })),
    state: Type.Optional(
      Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
        description:
          '`disabled`: registered with nothing delivered until `POST …/enable` (store the `whsec_` secret first); ' +
          'it then receives the events committed from its enabling on. Default `enabled`',
      }),
    ),
  },
  { additionalProperties: false },
);

const PatchBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(Nullable(EventTypes)),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  },
  { additionalProperties: false },
);

const Attempt = Type.Object({
  event_id: Type.String(),
  event_type: Type.String(),
  attempt: Type.Integer({ description: '1 for the first attempt; replays start again at 1' }),
  status: Type.Union([
    Type.Literal('succeeded'),
    Type.Literal('failed'),
    Type.Literal('pending'),
    Type.Literal('exhausted'),
  ]),
  response_status: Nullable(Type.Integer()),
  duration_ms: Nullable(Type.Integer()),
  next_attempt_at: Nullable(Timestamp),
  attempted_at: Nullable(Timestamp),
  error: Nullable(Type.String({ description: '`timeout`, `connection_failed: <code>`, `target_refused: <reason>`' })),
  replay: Type.Boolean(),
});

const DeliveriesQuery = Type.Object(
  {
    ...pageQueryProperties,
    status: Type.Optional(
      Type.Union([
        Type.Literal('succeeded'),
        Type.Literal('failed'),
        Type.Literal('pending'),
        Type.Literal('exhausted'),
      ]),
    ),
  },
  { additionalProperties: false },
);

const ReplayBody = Type.Object(
  {
    since: Timestamp,
    until: Type.Optional(Timestamp),
    event_types: Type.Optional(EventTypes),
  },
  { additionalProperties: false },
);

/** Webhook endpoints (CONTRACT section 9). Admin only: endpoints receive every principal's events. */
export async function webhookEndpointRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['webhooks'];
  const roles = ['admin'] as const;

  r.post('/v1/webhook-endpoints', {
    config: { roles, errors: ['invalid_id', 'webhook_target_refused'], oneTimeSecrets: ['secret'] },
    schema: {
      tags,
      summary:
        'Register a webhook endpoint, enabled or disabled (a shared_secret endpoint’s `whsec_` secret: this answer only)',
      operationId: 'createWebhookEndpoint',
      description:
        'Registers an endpoint that receives the events its `event_types` select (every event when ' +
        'omitted), signed by its `profile`: `shared_secret` (Standard Webhooks HMAC with the `whsec_` secret in ' +
        'this answer only), `asymmetric` or `cose` (the service key). The URL must be https and reach no private, ' +
        'loopback or reserved address (422 `webhook_target_refused`). Records `ns.webhook.endpoint_created`. ' +
        'With `state: "disabled"` nothing is delivered to it until `POST …/enable` (reason `admin`), so a receiver ' +
        'can store the secret first; from its enabling on it receives the events committed (earlier ones: replay). ' +
        'Sent with `Cache-Control: no-store`; replayed for its `Idempotency-Key`, the answer has no `secret` and ' +
        'says `secret_omitted: true` (rotate the secret if the first answer was lost).',
      body: CreateBody,
      response: { 201: CreatedEndpoint },
    },
    handler: async (req, reply) => reply.code(201).send(await createEndpoint(ctx, req.credential, req.body)),
  });

  r.get('/v1/webhook-endpoints', {
    config: { roles },
    schema: {
      tags,
      summary: 'List webhook endpoints',
      operationId: 'listWebhookEndpoints',
      description:
        'Endpoints in registration order, a page at a time (`limit`, then `cursor` = the previous `next_cursor`). ' +
        'Secrets are never listed; a disabled endpoint shows why (`disabled_reason`) and a failing one since when.',
      querystring: PageQuery,
      response: { 200: pageSchema(Endpoint) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const rows = await ctx.store.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('seq', '>', page.afterSeq)
        .orderBy('seq')
        .limit(page.limit + 1)
        .execute();
      const now = ctx.clock.now();
      return toPage(rows, page.limit, (row) => endpointView(row, now));
    },
  });

  r.get('/v1/webhook-endpoints/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'Read a webhook endpoint',
      operationId: 'getWebhookEndpoint',
      description:
        'One endpoint `ns:webhook_endpoint:<uuid>` with its state, filter and profile, and, after a rotation, ' +
        'until when the previous secret still signs. The secret itself is never returned here.',
      params: IdParams,
      response: { 200: Endpoint },
    },
    handler: async (req) => endpointView(await readEndpoint(ctx.store.db, req.params.id), ctx.clock.now()),
  });

  r.patch('/v1/webhook-endpoints/:id', {
    config: { roles, errors: ['webhook_target_refused'] },
    schema: {
      tags,
      summary: 'Change an endpoint’s url, event_types or description',
      operationId: 'updateWebhookEndpoint',
      description:
        'Changes the members named (at least one); `event_types: null` subscribes to every event again. A new URL ' +
        'passes the same SSRF check as at registration (422 `webhook_target_refused`). Records ' +
        '`ns.webhook.endpoint_updated`; attempts already queued keep going to the endpoint.',
      params: IdParams,
      body: PatchBody,
      response: { 200: Endpoint },
    },
    handler: async (req) => updateEndpoint(ctx, req.credential, req.params.id, req.body),
  });

  r.delete('/v1/webhook-endpoints/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'Delete an endpoint and its attempts log',
      operationId: 'deleteWebhookEndpoint',
      description:
        'Removes the endpoint and its attempts log, so nothing more is delivered to it, and records ' +
        '`ns.webhook.endpoint_deleted`. Answers 204 without a body. Events stay in the feed (GET /v1/events).',
      params: IdParams,
      response: { 204: Type.Unsafe<undefined>({ type: 'null', description: 'deleted, no body' }) },
    },
    handler: async (req, reply) => {
      await deleteEndpoint(ctx, req.credential, req.params.id);
      return reply.code(204).send();
    },
  });

  r.post('/v1/webhook-endpoints/:id/rotate-secret', {
    config: { roles, errors: ['conflict'], oneTimeSecrets: ['secret'] },
    schema: {
      tags,
      summary: 'New secret; the old one keeps signing beside it for 24 h (two `v1,` signatures)',
      operationId: 'rotateWebhookSecret',
      description:
        'Issues a new `whsec_` secret (in this answer only) for a `shared_secret` endpoint and records ' +
        '`ns.webhook.secret_rotated`; for 24 h deliveries carry two `v1,` signatures, so a receiver can switch ' +
        'without losing any. The `asymmetric` and `cose` profiles sign with the service key and have no secret ' +
        '(409 `conflict`). Sent with `Cache-Control: no-store`; replayed for its `Idempotency-Key`, the answer ' +
        'has no `secret` and says `secret_omitted: true`.',
      params: IdParams,
      response: {
        200: Type.Object({
          endpoint_id: Type.String(),
          secret: Type.Optional(
            Type.String({ description: 'the new `whsec_` secret: in the first answer only, never in a replay' }),
          ),
          secret_omitted: Type.Optional(Type.Literal(true, { description: SECRET_OMITTED_DESCRIPTION })),
          previous_secret_expires_at: Timestamp,
        }),
      },
    },
    handler: async (req) => rotateSecret(ctx, req.credential, req.params.id),
  });

  for (const [verb, act] of [
    ['enable', enableEndpoint],
    ['disable', disableEndpoint],
  ] as const) {
    r.post(`/v1/webhook-endpoints/:id/${verb}`, {
      config: { roles },
      schema: {
        tags,
        summary:
          verb === 'enable'
            ? 'Enable an endpoint: its pending attempts resume (events while disabled: use replay)'
            : 'Disable an endpoint: nothing is delivered to it until enabled',
        operationId: `${verb}WebhookEndpoint`,
        description:
          verb === 'enable'
            ? 'Sets the endpoint `enabled` (clearing `disabled_reason`, also after `gone` or `failing`) and records ' +
              '`ns.webhook.endpoint_enabled`; its pending attempts are delivered again. Events that were not ' +
              'queued while it was disabled come back only with a replay. Idempotent.'
            : 'Sets the endpoint `disabled` with reason `admin` and records `ns.webhook.endpoint_disabled`; its ' +
              'attempts wait until it is enabled again. The service also disables an endpoint by itself when it ' +
              'answers 410 (`gone`) or fails for 5 days (`failing`). Idempotent.',
        params: IdParams,
        response: { 200: Endpoint },
      },
      handler: async (req) => act(ctx, req.credential, req.params.id),
    });
  }

  r.get('/v1/webhook-endpoints/:id/deliveries', {
    config: { roles },
    schema: {
      tags,
      summary: 'The attempts log, newest first',
      operationId: 'listWebhookDeliveries',
      description:
        'Every delivery attempt to this endpoint, newest first, a page at a time (`limit`, `cursor` going back in ' +
        'time), optionally of one `status`: the response status, duration, error, next retry and whether it was ' +
        'a replay. Use it to see why a receiver missed an event.',
      params: IdParams,
      querystring: DeliveriesQuery,
      response: { 200: pageSchema(Attempt) },
    },
    handler: async (req) => {
      const page = pageRequest({ limit: req.query.limit });
      return listDeliveries(ctx, req.params.id, {
        limit: page.limit,
        cursor: req.query.cursor,
        status: req.query.status,
      });
    },
  });

  r.post('/v1/webhook-endpoints/:id/replay', {
    config: { roles },
    schema: {
      tags,
      summary: 'Queue again the events of a time range for this endpoint (same webhook-id)',
      operationId: 'replayWebhookDeliveries',
      description:
        'Queues again every committed event with `since` <= occurred_at < `until` (default now) that the ' +
        'endpoint filter and `event_types` select, with the same `webhook-id`, in commit order; answers 202 with ' +
        'how many. All or nothing: a range of more than 100000 events queues none (400, narrow it). Works on a ' +
        'disabled endpoint (delivered once enabled) and writes no event.',
      params: IdParams,
      body: ReplayBody,
      response: {
        202: Type.Object({ endpoint_id: Type.String(), queued: Type.Integer(), since: Timestamp, until: Timestamp }),
      },
    },
    handler: async (req, reply) => reply.code(202).send(await replayEvents(ctx, req.params.id, req.body)),
  });
}
