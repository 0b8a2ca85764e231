/**
 * The data-flow graph (preview, CONTRACT section 22, docs/data-flow.md): opt-in capability `reports` (AAR_OPT_IN),
 * scope `reports.read` for every role (http/token-scopes.ts). Admin and auditor read any principal's; a principal
 * credential its own only (another's: 403).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AarError, parseEntityId } from '@aar/core';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { credentialOf, requirePrincipalAccess } from '../http/authenticate.ts';
import { buildDataFlowGraph } from '../services/data-flow/build-data-flow.ts';

const PREVIEW =
  'PREVIEW (SPEC "Preview"): the data-flow graph may change incompatibly until its conformance suite is frozen; ' +
  'opt-in (`AAR_OPT_IN=reports`), scope `reports.read`. ';

const RecipientKind = Type.Union([Type.Literal('agent'), Type.Literal('connector'), Type.Literal('webhook_endpoint')]);

const DataFlowGraph = Type.Object(
  {
    schema_version: Type.Literal('ns.data_flow_graph.v1'),
    preview: Type.Literal(true),
    data_flow_graph_id: Type.String(),
    issuer: Type.String(),
    generated_at: Type.String({ format: 'date-time' }),
    principal_entity_id: Type.String(),
    recipients: Type.Array(
      Type.Object(
        {
          kind: RecipientKind,
          id: Type.String(),
          endpoints: Type.Optional(
            Type.Array(
              Type.Object({ endpoint_id: Type.String(), url_origin: Type.String() }, { additionalProperties: false }),
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    flows: Type.Array(
      Type.Object(
        {
          recipient_kind: RecipientKind,
          recipient_id: Type.String(),
          data_class: Type.String({
            description:
              '`grants`, `decisions`, `evidence_packs`, `memory_records:<classification>`, `events:<family>`',
          }),
          channel: Type.Union([
            Type.Literal('grant'),
            Type.Literal('authorize'),
            Type.Literal('memory'),
            Type.Literal('webhook'),
          ]),
          count: Type.Integer({ minimum: 0 }),
          first_at: Type.String(),
          last_at: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    sources: Type.Array(Type.String()),
    signature: Type.Object(
      { algorithm: Type.Literal('ed25519'), key_id: Type.String(), signature: Type.String() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: '`ns.data_flow_graph.v1`, signed (CONTRACT section 4)' },
);

export async function dataFlowRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/data-flow/:principal_entity_id', {
    config: {
      roles: ['auditor', 'principal'],
      scope: 'reports.read',
      errors: ['invalid_id', 'not_found', 'forbidden', 'capability_not_enabled', 'scope_missing'],
    },
    schema: {
      'x-preview': true,
      tags: ['reports'],
      summary: "Which agents, connectors and webhook endpoints received which classes of a principal's data (preview)",
      operationId: 'getDataFlowGraph',
      description:
        PREVIEW +
        'A signed `ns.data_flow_graph.v1` for a DPIA, derived from the grants, decisions, evidence packs, memory ' +
        'records, events and webhook deliveries the store recorded for the principal: per recipient (agent, ' +
        'connector, webhook endpoint) and data class (`grants`, `decisions`, `evidence_packs`, ' +
        '`memory_records:<classification>`, `events:<family>`), how many, first and last time. Admin and auditor ' +
        'read any principal; a principal credential its own only (403 otherwise). 404 for an unknown principal.',
      params: Type.Object(
        {
          principal_entity_id: Type.String({ maxLength: 256, description: '`ns:entity:person:<id>` or organisation' }),
        },
        { additionalProperties: false },
      ),
      response: { 200: DataFlowGraph },
    },
    handler: async (req) => {
      const credential = credentialOf(req);
      const principal = parseEntityId(req.params.principal_entity_id, '/params/principal_entity_id', [
        'person',
        'organisation',
      ]).id;
      if (credential.role !== 'auditor') requirePrincipalAccess(credential, principal);
      const known = await ctx.store.db
        .selectFrom('entities')
        .select('entity_id')
        .where('entity_id', '=', principal)
        .executeTakeFirst();
      if (!known) throw new AarError('not_found', `principal \`${principal}\` does not exist`);
      return buildDataFlowGraph(ctx, principal);
    },
  });
}
