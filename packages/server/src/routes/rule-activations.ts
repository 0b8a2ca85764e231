/**
 * Rule activations (CONTRACT section 19): which published pack versions apply to the deployment, a principal or a
 * grant, enforced or in shadow. Administrators activate and deactivate; any authenticated role reads.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { actorOf } from '../services/actor-of.ts';
import { createActivation } from '../services/policy/create-activation.ts';
import { deactivateActivation } from '../services/policy/deactivate-activation.ts';
import { activationIdParam, nameParam, versionParam } from '../services/policy/policy-ids.ts';
import { listActivations } from '../services/policy/read-policy.ts';
import { encodeCursor, pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import { Activation, ActivationMode, ActivationTarget, policyReaders } from './policy-schemas.ts';

const CreateBody = Type.Object(
  {
    pack_id: Type.String({ minLength: 1, maxLength: 200, description: '`ns:rule_pack:<name>`, or the name' }),
    version: Type.String({ minLength: 1, maxLength: 120 }),
    target: ActivationTarget,
    mode: ActivationMode,
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    ...pageQueryProperties,
    state: Type.Optional(Type.Unsafe<'active' | 'deactivated'>({ type: 'string', enum: ['active', 'deactivated'] })),
    principal_entity_id: Type.Optional(Type.String({ maxLength: 200 })),
    pack: Type.Optional(Type.String({ maxLength: 200, description: 'a pack name or id' })),
  },
  { additionalProperties: false },
);

export async function ruleActivationRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['policy'];

  r.post('/v1/rule-activations', {
    config: { roles: ['admin'], errors: ['reference_not_found', 'reference_invalid', 'conflict'] },
    schema: {
      tags,
      summary: 'Activate a published rule pack version for the deployment, a principal or a grant',
      operationId: 'createRuleActivation',
      description:
        'The version must be published, its dictionaries published, the target exist (an active person or ' +
        'organisation, or a grant; a `generic` pack never applies to a grant) and no identical activation be ' +
        'active (409). From the next authorize on, `enforce` packs narrow decisions and `shadow` packs are ' +
        'evaluated and recorded only. Records `ns.rule_activation.created`.',
      body: CreateBody,
      response: { 201: Activation },
    },
    handler: async (req, reply) =>
      reply.code(201).send(
        await createActivation(ctx, {
          name: nameParam('rule_pack', req.body.pack_id, '/pack_id'),
          version: versionParam(req.body.version, '/version'),
          target: req.body.target,
          mode: req.body.mode,
          actor: actorOf(req.credential),
          packPointer: '/pack_id',
        }),
      ),
  });

  r.get('/v1/rule-activations', {
    config: { roles: policyReaders },
    schema: {
      tags,
      summary: 'Activations, in creation order',
      operationId: 'listRuleActivations',
      description:
        'Every activation (filter by `state`, a principal, a pack), a page at a time, with its target, mode and ' +
        'the sector pack that made it.',
      querystring: ListQuery,
      response: { 200: pageSchema(Activation) },
    },
    handler: async (req) => {
      const { state, principal_entity_id, pack } = req.query;
      const page = pageRequest(req.query);
      const out = await listActivations(ctx, {
        ...page,
        state,
        principal_entity_id,
        pack: pack === undefined ? undefined : nameParam('rule_pack', pack, '/query/pack'),
      });
      return { items: out.items, next_cursor: out.full && out.lastSeq !== null ? encodeCursor(out.lastSeq) : null };
    },
  });

  r.delete('/v1/rule-activations/:id', {
    config: { roles: ['admin'] },
    schema: {
      tags,
      summary: 'Deactivate an activation (for good)',
      operationId: 'deleteRuleActivation',
      description:
        'The activation stops applying from the next authorize on; it is kept, `deactivated`, and never comes ' +
        'back. Deleting a deactivated activation changes nothing. Records `ns.rule_activation.deactivated`.',
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
      response: { 200: Activation },
    },
    handler: async (req) => deactivateActivation(ctx, activationIdParam(req.params.id), actorOf(req.credential)),
  });
}
