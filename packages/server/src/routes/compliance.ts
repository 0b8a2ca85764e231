import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toOscalAssessmentResults } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { createProjection, MAX_PROJECTED_PACKS } from '../services/compliance/create-projection.ts';
import { rulePackOf, rulePacks } from '../services/compliance/rule-pack-catalogue.ts';
import { Timestamp } from './schemas.ts';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Framework = Type.String({ pattern: '^[a-z0-9_]{2,40}$', description: '`soc2`, `iso27001`, `eu_ai_act`, …' });

const ProjectionBody = Type.Object(
  {
    framework: Framework,
    evidence_pack_ids: Type.Optional(
      Type.Array(Type.String({ maxLength: 128 }), {
        minItems: 1,
        maxItems: MAX_PROJECTED_PACKS,
        description: '`ns:evidence-pack:<uuid>` ids; or give a range instead',
      }),
    ),
    from: Type.Optional(Timestamp),
    to: Type.Optional(Timestamp),
  },
  { additionalProperties: false },
);

const ProjectionQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('oscal')], {
        description: '`json` (default): the signed projection; `oscal`: an OSCAL 1.1.2 assessment-results document',
      }),
    ),
  },
  { additionalProperties: false },
);

const FrameworkParams = Type.Object({ framework: Framework }, { additionalProperties: false });

/** Compliance projections (CONTRACT section 13, docs/compliance.md). */
export async function complianceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['compliance'];

  r.get('/v1/compliance/frameworks', {
    config: { roles: ['runtime', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: 'The compliance frameworks, each with its controls and the evidence that satisfies them',
      operationId: 'listComplianceFrameworks',
      description:
        'Every framework a projection can target (`soc2`, `iso27001`, `eu_ai_act`, `psd3`, `dora`, `nist_ai_rmf`), ' +
        'as its `ns.rule_pack.v1`: the source it maps (title, publisher, URL, adopted or proposal), what it leaves ' +
        'to the operator, and each control `{ control_id, title, assessment, evidence }` where `evidence` says in ' +
        'words and as RFC 6901 pointer templates with predicates what in an evidence pack satisfies it. Controls the ' +
        'runtime cannot support are `assessment: gap` with the reason.',
      response: { 200: Type.Object({ frameworks: Type.Array(Open('`ns.rule_pack.v1`')) }) },
    },
    handler: async () => ({ frameworks: [...rulePacks().values()] }),
  });

  r.get('/v1/compliance/frameworks/:framework', {
    config: { roles: ['runtime', 'auditor', 'principal'] },
    schema: {
      tags,
      summary: "One framework's rule pack",
      operationId: 'getComplianceFramework',
      description: 'The `ns.rule_pack.v1` serving `framework` (the highest version shipped); 404 for an unknown one.',
      params: FrameworkParams,
      response: { 200: Open('`ns.rule_pack.v1`') },
    },
    handler: async (req) => rulePackOf(req.params.framework, 'not_found', '/params/framework'),
  });

  r.post('/v1/compliance/projections', {
    config: { roles: ['auditor'], errors: ['reference_not_found', 'audit_unavailable'] },
    schema: {
      tags,
      summary: 'Project evidence packs onto a framework: a signed status per control, with evidence pointers',
      operationId: 'createComplianceProjection',
      description:
        'Projects the evidence packs named by `evidence_pack_ids`, or those of the decisions made in [`from`, `to`) ' +
        `(default: the 30 days before now; at most ${MAX_PROJECTED_PACKS} packs), onto the framework's rule pack. ` +
        'Each control gets `status` (`satisfied`, `partially_satisfied`, `not_applicable`, `gap`), a `reason` ' +
        'unless satisfied, and `evidence: [{ evidence_pack_id, pointer, note }]` whose RFC 6901 pointers resolve ' +
        'inside the named packs. Answers the signed `ns.compliance_projection.v1`; with `?format=oscal`, the same ' +
        'as an OSCAL 1.1.2 `assessment-results` document carrying the signed projection in its back-matter. ' +
        'Unknown framework or bad selection: 400 naming the field; an unknown pack: 422 `reference_not_found`. ' +
        'Nothing is stored, but packs not yet assembled are assembled (which may sign a checkpoint).',
      body: ProjectionBody,
      querystring: ProjectionQuery,
      response: { 200: Open('`ns.compliance_projection.v1` (signed), or an OSCAL `assessment-results` document') },
    },
    handler: async (req) => {
      const projection = await createProjection(ctx, req.credential, req.body);
      if (req.query.format !== 'oscal') return projection;
      const frameworkTitle = rulePackOf(projection.framework, 'invalid_request', '/framework').title;
      return toOscalAssessmentResults(projection, { frameworkTitle, baseUrl: ctx.config.issuerUrl });
    },
  });
}
