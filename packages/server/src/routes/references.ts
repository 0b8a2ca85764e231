/**
 * What the refs of a decision map name, each resolvable by a GET (issue: "every ref in a decision map resolves"):
 * capabilities, scopes, states and policies. Entities, grants, delegations, audit entries and evidence packs are
 * served by their own resources; docs/authorize.md has the table from ref prefix to path.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { getCapability, listCapabilities } from '../services/references/capability-catalogue.ts';
import { getScope } from '../services/references/get-scope.ts';
import { getPolicy, listPolicies } from '../services/references/policy-view.ts';
import { getState, listStates } from '../services/references/state-catalogue.ts';
import { DecisionSchema, IdParams, ReasonCodeSchema } from './schemas.ts';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

const Capability = Type.Object({
  capability_id: Type.String(),
  family: Type.String(),
  actions: Type.Array(Type.String()),
  moves_money: Type.Boolean(),
  description: Type.String(),
});
const State = Type.Object({
  state_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  effect: Type.String(),
});
const Reason = Type.Object({ reason: ReasonCodeSchema, decision: DecisionSchema });
const Policy = Type.Object({
  policy_id: Type.String(),
  version: Type.String(),
  engine_version: Type.String(),
  description: Type.String(),
  checks: Type.Array(Type.Object({ step: Type.Integer(), check: Type.String(), reasons: Type.Array(Reason) })),
  conclusion: Type.Array(Reason),
});
const list = <T extends ReturnType<typeof Type.Object>>(item: T) => Type.Object({ items: Type.Array(item) });

export async function referenceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['references'];
  const roles = ['runtime', 'auditor', 'principal'] as const;

  r.get('/v1/capabilities', {
    config: { roles },
    schema: {
      tags,
      summary: 'The capabilities a grant may name',
      operationId: 'listCapabilities',
      description: 'The card purchase capability and its seven sub-capabilities, with the actions each conveys.',
      response: { 200: list(Capability) },
    },
    handler: async () => ({ items: listCapabilities() }),
  });
  r.get('/v1/capabilities/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'One capability (`ns:capability:<family>:<action>`)',
      operationId: 'getCapability',
      description:
        'Resolves the capability node of a decision map: the actions the capability conveys and whether they move ' +
        'money. An id that names no capability is 404.',
      params: IdParams,
      response: { 200: Capability },
    },
    handler: async (req) => getCapability(req.params.id),
  });
  r.get('/v1/scopes/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'The scope a grant conveys now (`ns:scope:<grant uuid>`), as `ns.scope_snapshot.v1`',
      operationId: 'getScope',
      description:
        'Resolves the scope node of a decision map: the effective scope of the chain ending at the grant (the ' +
        'intersection of every link) beside each link own scope, amounts in major units. `ns:scope:none` (no grant ' +
        'covered the request) resolves to an empty snapshot. A principal credential reads the scopes of its own ' +
        'chains, or of chains it holds a link of. The decision itself recorded the scope it read: see the decision.',
      params: IdParams,
      response: { 200: Open('`ns.scope_snapshot.v1`') },
    },
    handler: async (req) => getScope(ctx, req.credential, req.params.id),
  });
  r.get('/v1/states', {
    config: { roles },
    schema: {
      tags,
      summary: 'The states a decision map can name',
      operationId: 'listStates',
      description: 'Every `ns:state:<name>` a map node may carry, with what it means for a decision.',
      response: { 200: list(State) },
    },
    handler: async () => ({ items: listStates() }),
  });
  r.get('/v1/states/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'One state (`ns:state:<name>`)',
      operationId: 'getState',
      description:
        'Resolves the state node of a decision map (and its delegation node when no grant covered the request): ' +
        'what the state means and what it does to a decision. An unknown name is 404.',
      params: IdParams,
      response: { 200: State },
    },
    handler: async (req) => getState(req.params.id),
  });
  r.get('/v1/policies', {
    config: { roles },
    schema: {
      tags,
      summary: 'The decision policies',
      operationId: 'listPolicies',
      description: 'Each policy with its version, the engine that runs it and its checks in order.',
      response: { 200: list(Policy) },
    },
    handler: async () => ({ items: listPolicies() }),
  });
  r.get('/v1/policies/:id', {
    config: { roles },
    schema: {
      tags,
      summary: 'One policy (`ns:policy:<name>`)',
      operationId: 'getPolicy',
      description:
        'Resolves the policy node of a decision map: the policy version, the engine version that runs it, and its ' +
        'checks in contractual order with the reasons each can give. An unknown policy is 404.',
      params: IdParams,
      response: { 200: Policy },
    },
    handler: async (req) => getPolicy(req.params.id),
  });
}
