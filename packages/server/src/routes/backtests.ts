/**
 * Backtests (CONTRACT section 19): a rule pack version run against the stored decisions of a time range, in the
 * background (services/backtests/), reporting what it would have changed. Administrators and auditors start one and
 * read it (a backtest reads every decision of its range, whoever's). It never writes a decision.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { getBacktest } from '../services/backtests/backtest-view.ts';
import { stopBacktests } from '../services/backtests/backtest-runner.ts';
import { startBacktest } from '../services/backtests/start-backtest.ts';
import { nameParam, versionParam } from '../services/policy/policy-ids.ts';
import { VersionParams } from './policy-schemas.ts';
import { DecisionSchema, ReasonCodeSchema, Timestamp } from './schemas.ts';

const StartBody = Type.Object(
  {
    from: Type.String({ maxLength: 40, description: 'ISO 8601 instant: the first decision instant included' }),
    until: Type.String({ maxLength: 40, description: 'ISO 8601 instant: decisions before it are included' }),
    principal_entity_id: Type.Optional(
      Type.String({ maxLength: 200, description: 'only this principal\u2019s decisions' }),
    ),
  },
  { additionalProperties: false },
);

const Count = Type.Object({ before: Type.Integer(), after: Type.Integer() });
// plain strings in the answer's type: a report is read back from the row as stored; the document still names the sets
const Decision = Type.Unsafe<string>(DecisionSchema);
const Reason = Type.Unsafe<string>(ReasonCodeSchema);
const Outcome = Type.Object({ decision: Decision, reason: Reason });

const Report = Type.Object({
  decisions: Type.Integer({ description: 'stored decisions decided again' }),
  changed: Type.Integer({ description: 'of them, those whose decision or reason the pack would have changed' }),
  by_outcome: Type.Array(Type.Intersect([Type.Object({ outcome: Decision }), Count]), {
    description: 'each decision, counted as recorded (`before`) and with the pack (`after`)',
  }),
  by_reason: Type.Array(Type.Intersect([Type.Object({ reason: Reason }), Count]), {
    description: 'each reason, counted as recorded and with the pack, most frequent after first',
  }),
  samples: Type.Array(
    Type.Object({
      policy_decision_id: Type.String(),
      now: Timestamp,
      before: Outcome,
      after: Outcome,
    }),
    { description: 'the first changed decisions (at most 20)' },
  ),
});

const Backtest = Type.Object({
  backtest_id: Type.String({ description: '`ns:backtest:<uuid>`' }),
  pack_id: Type.String(),
  version: Type.String(),
  params: Type.Object({
    from: Timestamp,
    until: Timestamp,
    principal_entity_id: Type.Optional(Type.String()),
  }),
  state: Type.Unsafe<'running' | 'done' | 'failed'>({ type: 'string', enum: ['running', 'done', 'failed'] }),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }),
  result: Type.Optional(Report),
  error: Type.Optional(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export async function backtestRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['policy'];
  app.addHook('onClose', async () => stopBacktests(ctx));

  r.post('/v1/rule-packs/:name/versions/:version/backtests', {
    config: { roles: ['admin', 'auditor'], errors: ['not_found', 'conflict', 'reference_not_found'] },
    schema: {
      tags,
      summary: 'Backtest a rule pack version against stored decisions',
      operationId: 'startBacktest',
      description:
        'Decides again every stored decision whose instant is in [`from`, `until`) (of one principal when ' +
        '`principal_entity_id` is given) with the pack version added as an `enforce` pack, in the background, and ' +
        'reports what it would have changed. Facts the pack reads that a decision did not record (its counters, its ' +
        'local time) are recomputed as they were then. A draft or published `purchase` pack; retired is 409. ' +
        'Writes no decision; records `ns.backtest.completed` when it ends.',
      params: VersionParams,
      body: StartBody,
      response: { 202: Type.Object({ backtest_id: Type.String({ description: '`ns:backtest:<uuid>`' }) }) },
    },
    handler: async (req, reply) =>
      reply
        .code(202)
        .send(
          await startBacktest(
            ctx,
            req.credential,
            nameParam('rule_pack', req.params.name),
            versionParam(req.params.version),
            req.body,
          ),
        ),
  });

  r.get('/v1/backtests/:id', {
    config: { roles: ['admin', 'auditor'], errors: ['not_found'] },
    schema: {
      tags,
      summary: 'A backtest: its progress, and its report once done',
      operationId: 'getBacktest',
      description:
        '`progress` counts the decisions decided so far of the `total` the range held when the backtest began. ' +
        '`result` once `state` is `done`; `error` when `failed`.',
      params: Type.Object({ id: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
      response: { 200: Backtest },
    },
    handler: async (req) => getBacktest(ctx, req.params.id),
  });
}
