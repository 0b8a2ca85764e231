import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { decideApproval } from '../services/approvals/decide-approval.ts';
import { getApproval } from '../services/approvals/get-approval.ts';
import { IdParams, Timestamp } from './schemas.ts';

const Approval = Type.Object({
  approval_id: Type.String(),
  policy_decision_id: Type.String({ description: 'the decision to name when retrying' }),
  principal_entity_id: Type.String(),
  actor_entity_id: Type.String(),
  status: Type.Enum(['pending', 'approved', 'rejected', 'expired', 'consumed']),
  reason: Type.String(),
  request: Type.Object({}, { additionalProperties: true, description: 'what is approved; the retry must repeat it' }),
  expires_at: Timestamp,
  decided_at: Type.Union([Timestamp, Type.Null()]),
  sca_reference: Type.Union([Type.String(), Type.Null()]),
  consumed_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
});

const DecisionBody = Type.Object(
  {
    approve: Type.Boolean(),
    sca_reference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: "the strong customer authentication reference of the principal's app",
      }),
    ),
  },
  { additionalProperties: false },
);

export async function approvalRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['approvals'];

  r.get('/v1/approvals/:id', {
    config: { roles: ['runtime', 'principal', 'auditor'] },
    schema: { tags, summary: 'Read an approval', params: IdParams, response: { 200: Approval } },
    handler: async (req) => getApproval(ctx, req.credential, req.params.id),
  });

  r.post('/v1/approvals/:id/decision', {
    config: { roles: ['principal'] },
    schema: {
      tags,
      summary: 'The principal approves or rejects (principal credential only)',
      params: IdParams,
      body: DecisionBody,
      response: { 200: Approval },
    },
    handler: async (req) => decideApproval(ctx, req.credential, req.params.id, req.body),
  });
}
