import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ErrorCode } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { grantBlastRadius } from '../services/graph/grant-blast-radius.ts';
import { graphBoundsQuery, parseGraphBounds } from '../services/graph/graph-bounds.ts';
import {
  AuthorityGraphSchema,
  BlastRadiusSchema,
  CapabilitiesSchema,
  PathsSchema,
  SpendersSchema,
} from '../services/graph/graph-schemas.ts';
import { agentCapabilities, cardTokenSpenders, principalAgentPaths } from '../services/graph/path-queries.ts';
import { principalGraphDocument } from '../services/graph/principal-graph-document.ts';
import { IdParams } from './schemas.ts';

const PREVIEW =
  'PREVIEW (CONTRACT section 22): the authority graph queries may change incompatibly until v1.1 is frozen. ';
const BOUNDS =
  ' Bounded: `max_depth` (default 8, 1-16) grant levels, `limit` (default 100, 1-1000) grants per page, `cursor` ' +
  '(the previous page\u2019s `next_cursor`); a value out of range is 400 naming the parameter. Roles: admin, ' +
  'auditor, and a principal credential for its own principal only (403 otherwise). Money in integer minor units.';

const BoundsQuery = Type.Object(graphBoundsQuery, { additionalProperties: false });
const ERRORS: ErrorCode[] = ['invalid_request', 'invalid_id', 'not_found', 'forbidden'];

/** the authority graph queries (CONTRACT 22); every operation `x-preview: true`. */
export async function graphRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['graph'];
  const preview = { 'x-preview': true };
  const config = { roles: ['auditor', 'principal'] as ('auditor' | 'principal')[], errors: ERRORS };

  r.get('/v1/graph/principals/:id', {
    config: { ...config, roles: [...config.roles], errors: [...ERRORS, 'conflict', 'audit_unavailable'] },
    schema: {
      ...preview,
      tags,
      summary: 'A principal\u2019s authority graph, signed at an audit checkpoint (preview)',
      operationId: 'getPrincipalAuthorityGraph',
      description:
        PREVIEW +
        'The principal\u2019s grants (a page of them, with every ancestor they need), their intermediaries, agents, ' +
        'card tokens, mandates and merchants as nodes and edges, each grant with its path\u2019s effective limits ' +
        'and today\u2019s remaining amount, signed as `ns.authority_graph.v1` and taken at the audit checkpoint it ' +
        'names (`checkpoint.size`, `checkpoint.root_hash`): signed in the same write unit the graph is read in.' +
        BOUNDS,
      params: IdParams,
      querystring: BoundsQuery,
      response: { 200: AuthorityGraphSchema },
    },
    handler: async (req) => principalGraphDocument(ctx, req.credential, req.params.id, parseGraphBounds(req.query)),
  });

  r.get('/v1/graph/card-tokens/:id/spenders', {
    config: { ...config, roles: [...config.roles] },
    schema: {
      ...preview,
      tags,
      summary: 'Who can spend on a card token, and how much today (preview)',
      operationId: 'getCardTokenSpenders',
      description:
        PREVIEW +
        'Every delegation path over the card token whose actions include `execute`, usable or not (`blocked_by`), ' +
        'with the path\u2019s effective per-purchase limit, daily limit and remaining amount today, computed from ' +
        'the same spend counters authorize reserves against.' +
        BOUNDS,
      params: IdParams,
      querystring: BoundsQuery,
      response: { 200: SpendersSchema },
    },
    handler: async (req) => cardTokenSpenders(ctx, req.credential, req.params.id, parseGraphBounds(req.query)),
  });

  r.get('/v1/graph/agents/:id/capabilities', {
    config: { ...config, roles: [...config.roles] },
    schema: {
      ...preview,
      tags,
      summary: 'What an agent may do, through every path (preview)',
      operationId: 'getAgentCapabilities',
      description:
        PREVIEW +
        'Every path ending at the actor (an agent or an intermediary), across principals, with its effective ' +
        'capabilities and limits. A principal credential sees its own principal\u2019s paths only.' +
        BOUNDS,
      params: IdParams,
      querystring: BoundsQuery,
      response: { 200: CapabilitiesSchema },
    },
    handler: async (req) => agentCapabilities(ctx, req.credential, req.params.id, parseGraphBounds(req.query)),
  });

  r.get('/v1/graph/paths', {
    config: { ...config, roles: [...config.roles] },
    schema: {
      ...preview,
      tags,
      summary: 'The paths from a principal to an agent (preview)',
      operationId: 'getAuthorityPaths',
      description:
        PREVIEW +
        'Every delegation path from the principal `from` to the actor `to` (both entity ids, required), with each ' +
        'path\u2019s links and effective limits.' +
        BOUNDS,
      querystring: Type.Object(
        {
          from: Type.Optional(Type.String({ maxLength: 256, description: 'the principal\u2019s entity id' })),
          to: Type.Optional(Type.String({ maxLength: 256, description: 'the actor\u2019s entity id' })),
          ...graphBoundsQuery,
        },
        { additionalProperties: false },
      ),
      response: { 200: PathsSchema },
    },
    handler: async (req) => principalAgentPaths(ctx, req.credential, req.query, parseGraphBounds(req.query)),
  });

  r.get('/v1/graph/grants/:id/blast-radius', {
    config: { ...config, roles: [...config.roles] },
    schema: {
      ...preview,
      tags,
      summary: 'What revoking a grant would cut, without revoking it (preview)',
      operationId: 'getGrantBlastRadius',
      description:
        PREVIEW +
        'Exactly the grants `POST /v1/grants/{id}/revoke` would revoke (the grant and every still-active ' +
        'descendant), and the agent, card-token and mandate edges they carry. Nothing is changed.' +
        BOUNDS,
      params: IdParams,
      querystring: BoundsQuery,
      response: { 200: BlastRadiusSchema },
    },
    handler: async (req) => grantBlastRadius(ctx, req.credential, req.params.id, parseGraphBounds(req.query)),
  });
}
