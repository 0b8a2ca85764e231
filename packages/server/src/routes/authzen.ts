/**
 * The AuthZEN Authorization API 1.0 door (CONTRACT section 20; docs/authzen.md): the PDP metadata (public), one
 * evaluation, a batch. Bearer tokens as everywhere; `runtime` and `pep` may evaluate (a `pep` token may do nothing
 * else). Every decision is decided, signed and audited by services/authzen before it is answered.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.ts';
import { credentialOf } from '../http/authenticate.ts';
import type { GrantLinkVerifier } from '../services/authorize/grant-link-verifier.ts';
import type { AuthzenEvaluation, AuthzenEvaluationsBody } from '../services/authzen/authzen-model.ts';
import { evaluateMany, evaluateOne } from '../services/authzen/evaluate.ts';
import { pdpMetadata } from '../services/authzen/pdp-metadata.ts';
import { search, type SearchInput, type SearchKind } from '../services/authzen/search.ts';
import {
  AuthzenEvaluationRequest,
  AuthzenEvaluationResponse,
  AuthzenEvaluationsAnswer,
  AuthzenEvaluationsRequest,
  AuthzenPdpMetadata,
  AuthzenSearchActionRequest,
  AuthzenSearchActionResponse,
  AuthzenSearchEntityResponse,
  AuthzenSearchResourceRequest,
  AuthzenSearchSubjectRequest,
} from './authzen-schemas.ts';

const tags = ['authzen'];
export const EVALUATORS = ['runtime', 'pep'] as const;

export async function authzenRoutes(app: FastifyInstance, ctx: AppContext, verifier: GrantLinkVerifier): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/.well-known/authzen-configuration', {
    config: { public: true },
    schema: {
      tags,
      summary: 'AuthZEN PDP metadata: where the evaluation and search endpoints are',
      operationId: 'getAuthzenConfiguration',
      description:
        'The Policy Decision Point metadata of AuthZEN 1.0 (section 9): this service\u2019s base URL (its first ' +
        'public URL, AAR_PUBLIC_URL) and the absolute URL of each endpoint. Public and cacheable for 5 minutes.',
      security: [],
      response: { 200: AuthzenPdpMetadata },
    },
    handler: async (_req, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return pdpMetadata(ctx);
    },
  });

  r.post('/access/v1/evaluation', {
    config: { roles: EVALUATORS, grantVersion: true, errors: ['invalid_id', 'invalid_amount', 'unknown_currency'] },
    schema: {
      tags,
      summary: 'AuthZEN: may this subject take this action on this resource?',
      operationId: 'authzenEvaluate',
      description:
        'AuthZEN 1.0 Access Evaluation (section 6). A capability id or `purchase.<action>` is the purchase ' +
        'mapping: subject `{ type: agent, id }`, resource `{ type: purchase, properties: { merchant_id, amount, ' +
        'currency, instrument, basket? } }`, context `{ principal_entity_id, policy_decision_id?, agent_request? }`; ' +
        'it runs POST /v1/runtime/authorize (same checks, signed decision map, audit entry, evidence) and answers ' +
        '`decision: true` only for `allow_with_constraints`, with the authorize response in `context.aar` ' +
        '(`require_approval`: false, with the approval in `context.aar.approval`). Any other action is decided by ' +
        'the active `generic` rule packs and recorded as a signed `ns.access_decision.v1` with its audit entry. ' +
        'HTTP 200 for every decision; a 4xx means the request was malformed or not this token\u2019s to ask.',
      body: AuthzenEvaluationRequest,
      response: { 200: AuthzenEvaluationResponse },
    },
    handler: async (req) =>
      evaluateOne({ ctx, verifier, request: req, credential: credentialOf(req) }, req.body as AuthzenEvaluation),
  });

  r.post('/access/v1/evaluations', {
    config: { roles: EVALUATORS, grantVersion: true, errors: ['invalid_id', 'invalid_amount', 'unknown_currency'] },
    schema: {
      tags,
      summary: 'AuthZEN: many evaluations in one request',
      operationId: 'authzenEvaluateMany',
      description:
        'AuthZEN 1.0 Access Evaluations (section 7): `subject`, `action`, `resource` and `context` at the top are ' +
        'defaults, each item\u2019s members replace them; `options.evaluations_semantic` is `execute_all` (default), ' +
        '`deny_on_first_deny` or `permit_on_first_permit` (the answer ends at that decision). At most 100 items. ' +
        'Every item is checked before any is decided: one malformed item, or one naming a principal this token may ' +
        'not act for, refuses the whole request and nothing is recorded. Each decision is signed and audited as in ' +
        'POST /access/v1/evaluation. Without `evaluations`, the request is one evaluation answered as one.',
      body: AuthzenEvaluationsRequest,
      response: { 200: AuthzenEvaluationsAnswer },
    },
    handler: async (req) =>
      evaluateMany({ ctx, verifier, request: req, credential: credentialOf(req) }, req.body as AuthzenEvaluationsBody),
  });

  const searches = [
    {
      kind: 'subject',
      body: AuthzenSearchSubjectRequest,
      response: AuthzenSearchEntityResponse,
      operationId: 'authzenSearchSubjects',
      summary: 'AuthZEN: which subjects may take this action on this resource?',
      what:
        'Subject search (section 8.4). Purchases: the agents holding an active grant of `context.principal_entity_id` ' +
        'that covers the action. Generic: the dictionary terms with a `subject` of the searched type that the ' +
        'active generic packs would permit.',
    },
    {
      kind: 'resource',
      body: AuthzenSearchResourceRequest,
      response: AuthzenSearchEntityResponse,
      operationId: 'authzenSearchResources',
      summary: 'AuthZEN: on which resources may this subject take this action?',
      what:
        'Resource search (section 8.5). Purchases (resource type `instrument`): the card tokens the agent\u2019s ' +
        'active grants name for the action. Generic: the dictionary terms with a `resource` of the searched type ' +
        'that the active generic packs would permit.',
    },
    {
      kind: 'action',
      body: AuthzenSearchActionRequest,
      response: AuthzenSearchActionResponse,
      operationId: 'authzenSearchActions',
      summary: 'AuthZEN: which actions may this subject take on this resource?',
      what:
        'Action search (section 8.6). Purchases: the `purchase.<action>` names the agent\u2019s active grants ' +
        'cover (narrowed by `allowed_actions`, unexpired). Generic: the dictionary terms with an `action` that the ' +
        'active generic packs would permit.',
    },
  ] as const;
  for (const s of searches) {
    r.post(`/access/v1/search/${s.kind}`, {
      config: { roles: EVALUATORS },
      schema: {
        tags,
        summary: s.summary,
        operationId: s.operationId,
        description:
          `${s.what} Advisory and unrecorded: an evaluation still decides. Sorted, paged by \`page.limit\` ` +
          '(default 50, at most 100) and the opaque `page.token` (the previous answer\u2019s `next_token`, empty on ' +
          'the last page). A `pep` token bound to a principal searches for that principal only.',
        body: s.body,
        response: { 200: s.response },
      },
      // the results' shape is the response schema's (search.ts builds exactly those members)
      handler: async (req) =>
        (await search(
          ctx,
          verifier,
          credentialOf(req),
          s.kind as SearchKind,
          req.body as unknown as SearchInput,
        )) as never,
    });
  }
}
