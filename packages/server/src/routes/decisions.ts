import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { getDecision, getDecisionMap } from '../services/decisions/decision-record.ts';
import { DecisionSchema, IdParams, ReasonCodeSchema } from './schemas.ts';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

// the closed members are declared (enums for generators); the rest of the record stays open
const DecisionRecord = Type.Object(
  {
    policy_decision_id: Type.String(),
    decision: DecisionSchema,
    reason: ReasonCodeSchema,
    outcome: Type.Union(
      [
        Type.Literal('none'),
        Type.Literal('reserved'),
        Type.Literal('executed'),
        Type.Literal('failed'),
        Type.Literal('refunded'),
      ],
      { description: '`none` unless an allowed `execute` reserved money; then settled by POST /v1/runtime/outcomes' },
    ),
  },
  {
    additionalProperties: true,
    description: 'decision record: request, snapshot, diagnostics, reservation, refs (docs/authorize.md)',
  },
);

export async function decisionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['decisions'];
  const roles = ['runtime', 'auditor', 'principal'] as const;

  r.get('/v1/decisions/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'The recorded decision, with its request, snapshot and diagnostics',
      operationId: 'getDecision',
      description:
        'Everything the decision `ns:decision:<uuid>` was made from and gave: the normalised request, the state ' +
        'snapshot it read, the engine version, the decision, reason and diagnostics, the money reservation and its ' +
        'outcome, and the refs of its map, audit entry and evidence. Enough to replay it with core `decide`. A ' +
        "principal credential reads its own principal's decisions only.",
      params: IdParams,
      response: { 200: DecisionRecord },
    },
    handler: async (req) => getDecision(ctx, req.credential, req.params.id),
  });

  r.get('/v1/decision-maps/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'The signed decision map',
      operationId: 'getDecisionMap',
      description:
        'The `ns.decision_map.v1` of a decision, as signed when it was made: the seven nodes principal, ' +
        'delegation, actor, capability, scope, state and policy, then the decision and reason. Every ref in it ' +
        'resolves to a GET of this API (docs/authorize.md has the table). A principal credential reads its own only.',
      params: IdParams,
      response: { 200: Open('`ns.decision_map.v1`, signed') },
    },
    handler: async (req) => getDecisionMap(ctx, req.credential, req.params.id),
  });
}
