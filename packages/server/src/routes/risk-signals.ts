import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { recordRiskSignal } from '../services/risk/record-risk-signal.ts';

const RiskState = Type.Union([Type.Literal('normal'), Type.Literal('elevated'), Type.Literal('blocked')]);

const RiskSignalBody = Type.Object(
  {
    entity_id: Type.String({ description: 'an agent, principal or card token id' }),
    risk_state: RiskState,
    reason: Type.Optional(Type.String({ maxLength: 256 })),
    expires_at: Type.Optional(Type.String({ description: 'ISO 8601 UTC; the state lapses to normal then' })),
  },
  { additionalProperties: false },
);

const RiskStateView = Type.Object({
  entity_id: Type.String(),
  risk_state: RiskState,
  reason: Type.Union([Type.String(), Type.Null()]),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  updated_at: Type.String(),
});

export async function riskSignalRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post('/v1/risk-signals', {
    config: { roles: ['runtime'], errors: ['invalid_id', 'reference_not_found'] },
    schema: {
      tags: ['risk'],
      summary: 'Set the risk state of an entity or card token',
      operationId: 'recordRiskSignal',
      description:
        'An external risk engine sets the risk state of an agent, a principal or a card token, and ' +
        '`ns.risk.state_changed` is recorded: `blocked` denies every authorization it takes part in ' +
        '(`risk_state_blocked`), `elevated` requires the principal approval (`risk_state_elevated`), `normal` ' +
        'clears. With `expires_at` (in the future) the state lapses back to `normal` then. The latest signal wins.',
      body: RiskSignalBody,
      response: { 200: RiskStateView },
    },
    handler: async (req) => recordRiskSignal(ctx, req.credential, req.body),
  });
}
