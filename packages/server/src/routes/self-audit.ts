import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { runSelfAudit } from '../services/self-audit/run-self-audit.ts';
import { SELF_AUDIT_CHECKS } from '../services/self-audit/self-audit-report.ts';
import { getSelfAuditRun } from '../services/self-audit/self-audit-runs.ts';
import { IdParams } from './schemas.ts';

const Report = Type.Object({}, { additionalProperties: true, description: '`ns.self_audit_report.v1`, signed' });
const checkList = SELF_AUDIT_CHECKS.map((c) => `\`${c}\``).join(', ');

/** Self-audit (CONTRACT section 14, docs/compliance.md "Self-audit"). */
export async function selfAuditRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['self-audit'];

  r.post('/v1/self-audit/runs', {
    config: { errors: ['audit_unavailable'] },
    schema: {
      tags,
      summary: 'Audit this deployment against its own guarantees: a signed report of nine checks',
      operationId: 'createSelfAuditRun',
      description:
        `Runs, in this order, ${checkList}, and answers the signed \`ns.self_audit_report.v1\` (stored write-once). ` +
        'Each check has `status` (`pass`, `warn`, `fail`), the `evidence` it looked at (ids, counts, modes, ' +
        'timestamps; never a secret, a URL or a card number) and, unless it passed, a `remedy`. `passed` is true ' +
        'when no check failed. Admin only: it reads key-file modes and every stored value.',
      response: { 201: Report },
    },
    handler: async (req, reply) => reply.code(201).send(await runSelfAudit(ctx, req.credential)),
  });

  r.get('/v1/self-audit/runs/:id', {
    config: { roles: ['auditor'] },
    schema: {
      tags,
      summary: 'A stored self-audit report',
      operationId: 'getSelfAuditRun',
      description: 'The signed report `ns:self_audit_run:<uuid>`, byte for byte as it was signed.',
      params: IdParams,
      response: { 200: Report },
    },
    handler: async (req, reply) => {
      const text: unknown = await getSelfAuditRun(ctx, req.params.id);
      return reply.type('application/json; charset=utf-8').send(text as Record<string, unknown>);
    },
  });
}
