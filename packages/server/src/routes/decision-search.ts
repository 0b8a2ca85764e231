/**
 * Read-only search over recorded decisions, for the console (CONTRACT section 17): summaries newest first, and
 * counts per reason and per hour or day. Beside routes/decisions.ts (one decision, one map) because the console
 * added them; the same roles, and a principal credential sees its own principal's decisions only.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { readDecisionFilter } from '../services/decision-search/decision-filter.ts';
import { decisionStats } from '../services/decision-search/decision-stats.ts';
import { searchDecisions } from '../services/decision-search/search-decisions.ts';
import { decodeCursor, encodeCursor, pageSize, pageQueryProperties } from './pagination.ts';
import { DecisionSchema, ReasonCodeSchema, Timestamp } from './schemas.ts';

const filterProperties = {
  actor_entity_id: Type.Optional(Type.String({ maxLength: 200, description: 'the agent (`ns:agent:<id>` accepted)' })),
  principal_entity_id: Type.Optional(
    Type.String({
      maxLength: 200,
      description: "a principal credential may name only its own principal (another's: 403)",
    }),
  ),
  reason: Type.Optional(
    Type.String({
      maxLength: 128,
      description: 'one reason code (CONTRACT section 3), or a rule pack\u2019s `<pack name>.<code>` (section 19)',
    }),
  ),
  decision: Type.Optional(
    Type.String({ maxLength: 32, description: '`allow_with_constraints`, `require_approval` or `deny`' }),
  ),
  since: Type.Optional(
    Type.String({ maxLength: 40, description: 'ISO 8601 instant with a zone; decisions at or after it' }),
  ),
  until: Type.Optional(
    Type.String({ maxLength: 40, description: 'ISO 8601 instant with a zone; decisions before it' }),
  ),
};

const SearchQuery = Type.Object({ ...pageQueryProperties, ...filterProperties }, { additionalProperties: false });

const StatsQuery = Type.Object(
  {
    ...filterProperties,
    bucket: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { description: 'default `day`' })),
  },
  { additionalProperties: false },
);

const Summary = Type.Object({
  policy_decision_id: Type.String(),
  decision: DecisionSchema,
  reason: ReasonCodeSchema,
  actor_entity_id: Type.String(),
  principal_entity_id: Type.String(),
  subject: Type.String(),
  action: Type.String(),
  leaf_grant_id: Type.Union([Type.String(), Type.Null()]),
  decision_map_ref: Type.String(),
  audit_ref: Type.String(),
  evidence_refs: Type.Array(Type.String()),
  outcome: Type.String(),
  created_at: Timestamp,
});

const SummaryPage = Type.Object({
  items: Type.Array(Summary),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'older decisions: pass it as `cursor`' }),
});

const Stats = Type.Object({
  total: Type.Integer(),
  by_reason: Type.Array(Type.Object({ reason: ReasonCodeSchema, decision: DecisionSchema, count: Type.Integer() })),
  over_time: Type.Array(
    Type.Object({
      start: Type.String({ description: 'the UTC hour or day the bucket starts at' }),
      allow_with_constraints: Type.Integer(),
      require_approval: Type.Integer(),
      deny: Type.Integer(),
    }),
    { description: 'buckets that had decisions, oldest first, at most the newest 744' },
  ),
});

export async function decisionSearchRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['decisions'];
  const roles = ['auditor', 'principal'] as const;

  r.get('/v1/decisions', {
    config: { roles, errors: ['invalid_id'] },
    schema: {
      tags,
      summary: 'Search decisions by agent, principal, reason, decision and time, newest first',
      operationId: 'searchDecisions',
      description:
        'Summaries of recorded decisions, newest first, a page at a time (`limit`, `cursor` going back in time), ' +
        'filtered by agent, principal, reason, decision and a time range [`since`, `until`). Each names its ' +
        'decision map, audit entry and evidence packs; `GET /v1/decisions/{id}` has the request, snapshot and ' +
        'diagnostics. A principal credential sees its own principal’s decisions only.',
      querystring: SearchQuery,
      response: { 200: SummaryPage },
    },
    handler: async (req) => {
      const filter = readDecisionFilter(req.query, req.credential);
      const beforeSeq = req.query.cursor ? decodeCursor(req.query.cursor) : undefined;
      const page = await searchDecisions(ctx, filter, { limit: pageSize(req.query.limit), beforeSeq });
      return { items: page.items, next_cursor: page.nextBeforeSeq === null ? null : encodeCursor(page.nextBeforeSeq) };
    },
  });

  r.get('/v1/decisions/stats', {
    config: { roles, errors: ['invalid_id'] },
    schema: {
      tags,
      summary: 'Decisions counted per reason and per hour or day',
      operationId: 'getDecisionStats',
      description:
        'How many decisions match the filter (the same as the search), per reason and per UTC hour or day ' +
        '(`bucket`), for dashboards. A principal credential counts its own principal’s decisions only.',
      querystring: StatsQuery,
      response: { 200: Stats },
    },
    handler: async (req) =>
      decisionStats(ctx, readDecisionFilter(req.query, req.credential), req.query.bucket ?? 'day'),
  });
}
