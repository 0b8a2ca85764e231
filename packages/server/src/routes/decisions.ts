import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { getDecision, getDecisionMap } from '../services/decisions/decision-record.ts';
import { IdParams } from './schemas.ts';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

export async function decisionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['decisions'];
  const roles = ['runtime', 'auditor', 'principal'] as const;

  r.get('/v1/decisions/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'The recorded decision, with its request, snapshot and diagnostics',
      params: IdParams,
      response: { 200: Open('decision record') },
    },
    handler: async (req) => getDecision(ctx, req.credential, req.params.id),
  });

  r.get('/v1/decision-maps/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'The signed decision map',
      params: IdParams,
      response: { 200: Open('`ns.decision_map.v1`, signed') },
    },
    handler: async (req) => getDecisionMap(ctx, req.credential, req.params.id),
  });
}
