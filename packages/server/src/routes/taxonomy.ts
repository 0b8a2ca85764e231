/**
 * The cross-rule-pack taxonomy (preview, issue 30; docs/policy.md "Taxonomy"): the `rule_taxonomy` terms as a tree,
 * and for one term the rules and compliance controls that implement it. Read-only; any authenticated role reads, as
 * dictionaries and rule packs.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { taxonomyOverview, termImplementations } from '../services/taxonomy/term-implementations.ts';
import { policyReaders } from './policy-schemas.ts';

const PREVIEW =
  'PREVIEW (SPEC "Preview"): the cross-rule-pack taxonomy may change incompatibly until its conformance suite is ' +
  'frozen. ';

const TermCode = Type.String({ pattern: '^[a-z][a-z0-9_.]*$', maxLength: 128 });
const Codes = Type.Array(Type.String());

const TaxonomyRef = Type.Object(
  {
    dictionary_id: Type.String({ description: '`ns:dictionary:rule_taxonomy`' }),
    version: Type.String(),
    digest: Type.String({ description: 'the published dictionary’s `sha-256:` digest' }),
  },
  { additionalProperties: false, description: 'the taxonomy read: the latest published shipped `rule_taxonomy`' },
);

const termMembers = {
  code: Type.String(),
  label: Type.String(),
  meaning: Type.Optional(Type.String()),
  parent: Type.Optional(Type.String({ description: 'the broader term' })),
};

const Rule = Type.Object(
  {
    pack_id: Type.String(),
    version: Type.String(),
    rule_id: Type.String(),
    title: Type.String(),
    effect: Type.String(),
    reason: Type.Optional(Type.String()),
    taxonomy: Codes,
    matched: Type.Array(Type.String(), { description: 'the terms of `taxonomy` within the asked term' }),
  },
  { additionalProperties: false },
);

const Control = Type.Object(
  {
    framework: Type.String(),
    pack_id: Type.String(),
    version: Type.String(),
    control_id: Type.String(),
    term_code: Type.String({ description: 'its term in the `compliance_control` dictionary' }),
    title: Type.String(),
    assessment: Type.String(),
    taxonomy: Codes,
    matched: Codes,
    implemented_by: Type.Optional(Codes),
  },
  { additionalProperties: false },
);

const Implementations = Type.Object(
  {
    taxonomy: TaxonomyRef,
    term: Type.Object(termMembers, { additionalProperties: false }),
    broader: Type.Array(Type.String(), { description: 'the broader terms, nearest first' }),
    narrower: Type.Array(Type.String(), { description: 'every narrower term, depth first' }),
    include_narrower: Type.Boolean(),
    rules: Type.Array(Rule),
    controls: Type.Array(Control),
  },
  { additionalProperties: false },
);

const Overview = Type.Object(
  {
    taxonomy: TaxonomyRef,
    terms: Type.Array(
      Type.Object(
        {
          ...termMembers,
          narrower: Type.Array(Type.String(), { description: 'the direct narrower terms' }),
          rules: Type.Integer({ minimum: 0, description: 'rules implementing the term or a narrower one' }),
          controls: Type.Integer({ minimum: 0, description: 'controls implementing the term or a narrower one' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export async function taxonomyRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['policy'];
  const preview = { 'x-preview': true };

  r.get('/v1/taxonomy', {
    config: { roles: policyReaders, errors: ['audit_unavailable'] },
    schema: {
      ...preview,
      tags,
      summary: 'The rule taxonomy as a tree, with how many rules and controls implement each term (preview)',
      operationId: 'getTaxonomy',
      description:
        PREVIEW +
        'Every term of the latest published shipped `rule_taxonomy` dictionary in dictionary order, with its meaning, ' +
        'its broader term (`parent`), its direct narrower terms, and the number of published rules and compliance ' +
        'controls that implement it (pointing at it or at a narrower term).',
      response: { 200: Overview },
    },
    handler: async () => taxonomyOverview(ctx),
  });

  r.get('/v1/taxonomy/:term', {
    config: { roles: policyReaders, errors: ['not_found', 'audit_unavailable'] },
    schema: {
      ...preview,
      tags,
      summary: 'The rules and compliance controls that implement one taxonomy term (preview)',
      operationId: 'getTaxonomyTerm',
      description:
        PREVIEW +
        'For a term of `rule_taxonomy` (`human_oversight`, `sca`, `spend_limits`, ...): the rules of every ' +
        'published rule pack version and the controls of every compliance mapping whose `taxonomy` names the term ' +
        'or one of its narrower terms (only the term itself with `include_narrower=false`), each with the terms ' +
        'that matched. 404 for a term the taxonomy does not have.',
      params: Type.Object({ term: TermCode }, { additionalProperties: false }),
      querystring: Type.Object(
        {
          include_narrower: Type.Optional(
            Type.Union([Type.Literal('true'), Type.Literal('false')], {
              description: 'also the rules and controls of narrower terms (`true`, the default)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      response: { 200: Implementations },
    },
    handler: async (req) => termImplementations(ctx, req.params.term, req.query.include_narrower !== 'false'),
  });
}
