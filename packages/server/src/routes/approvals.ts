import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { REASON_CODES, RULE_REASON_PATTERN, tryParseEntityId } from '@aar/core';
import { requirePrincipalAccess } from '../http/authenticate.ts';
import { withBaskets } from '../services/approvals/approval-basket.ts';
import { decideApproval } from '../services/approvals/decide-approval.ts';
import { getApproval } from '../services/approvals/get-approval.ts';
import { listApprovals } from '../services/approvals/list-approvals.ts';
import { pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import { IdParams, Timestamp } from './schemas.ts';

/** `ns:human:alice` is `ns:entity:person:alice` (CONTRACT section 1); anything else compares as given. */
const canonicalEntity = (id: string): string => tryParseEntityId(id)?.id ?? id;

const Approval = Type.Object({
  approval_id: Type.String(),
  policy_decision_id: Type.String({ description: 'the decision to name when retrying' }),
  principal_entity_id: Type.String(),
  actor_entity_id: Type.String(),
  status: Type.Enum(['pending', 'approved', 'rejected', 'expired', 'consumed']),
  reason: Type.Unsafe<string>({
    anyOf: [
      { type: 'string', enum: Object.keys(REASON_CODES) },
      { type: 'string', pattern: RULE_REASON_PATTERN, description: 'a rule pack\u2019s reason, `<pack name>.<code>`' },
    ],
    description: 'the reason code of the decision that asked for the approval (a rule\u2019s when a rule asked)',
  }),
  request: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'what is approved; the retry must repeat it: `subject` and its `action`, `merchant_id`, `amount`, ' +
        '`instrument_id`, `basket_hash`, and `basket` (the items as the agent sent them, shown only when they hash ' +
        'to `basket_hash`)',
    },
  ),
  expires_at: Timestamp,
  decided_at: Type.Union([Timestamp, Type.Null()]),
  sca_reference: Type.Union([Type.String(), Type.Null()]),
  consumed_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
});

const ListQuery = Type.Object(
  {
    ...pageQueryProperties,
    state: Type.Optional(
      Type.Enum(['pending', 'approved', 'rejected', 'expired', 'consumed'], {
        description: 'the state a reader sees: past `expires_at`, a pending or approved approval is `expired`',
      }),
    ),
    principal_entity_id: Type.Optional(
      Type.String({ description: "a principal credential may name only its own principal (another's: 403)" }),
    ),
    actor_entity_id: Type.Optional(Type.String({ description: 'the agent the approval is for' })),
  },
  { additionalProperties: false },
);

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

  r.get('/v1/approvals', {
    config: { roles: ['admin', 'principal', 'auditor'] },
    schema: {
      tags,
      summary:
        "List approvals; a principal credential sees only its own principal's (`?state=pending`: what to decide)",
      operationId: 'listApprovals',
      description:
        "The principal's banking app polls `?state=pending` for what to approve. Approvals in creation order, a " +
        'page at a time (`limit`, `cursor`), filtered by `state`, principal or agent; a lapsed pending approval ' +
        "reads `expired`. A principal credential sees its own principal's only, and naming another principal is " +
        '403 rather than an empty page.',
      querystring: ListQuery,
      response: { 200: pageSchema(Approval) },
    },
    handler: async (req) => {
      const q = req.query;
      const named = q.principal_entity_id ? canonicalEntity(q.principal_entity_id) : undefined;
      let principal = named;
      if (req.credential?.role === 'principal') {
        // Another principal's approvals are refused outright (403) rather than silently narrowed: a principal app
        // that asks for someone else's approvals has a bug or is probing, and must not mistake "none" for an answer.
        const own = req.credential.principal_entity_id ?? '';
        if (named !== undefined && named !== own) requirePrincipalAccess(req.credential, named);
        principal = own;
      }
      const page = await listApprovals(ctx, pageRequest(q), {
        principal_entity_id: principal,
        actor_entity_id: q.actor_entity_id ? canonicalEntity(q.actor_entity_id) : undefined,
        state: q.state,
      });
      return { ...page, items: await withBaskets(ctx, page.items) };
    },
  });

  r.get('/v1/approvals/:id', {
    config: { roles: ['runtime', 'principal', 'auditor'] },
    schema: {
      tags,
      summary: 'Read an approval',
      operationId: 'getApproval',
      description:
        'One approval `ns:approval:<uuid>`: what it approves (`request`), why it was asked, its state and expiry, ' +
        'and the decision that consumed it. An agent polls it after a `require_approval`, then retries the ' +
        'authorization with its `policy_decision_id`. A principal credential reads its own only.',
      params: IdParams,
      response: { 200: Approval },
    },
    handler: async (req) => (await withBaskets(ctx, [await getApproval(ctx, req.credential, req.params.id)]))[0],
  });

  r.post('/v1/approvals/:id/decision', {
    config: { roles: ['principal'], errors: ['conflict'] },
    schema: {
      tags,
      summary: 'The principal approves or rejects (principal credential only)',
      operationId: 'decideApproval',
      description:
        'The principal answers a pending approval (`approve`, with the `sca_reference` of its strong customer ' +
        'authentication) and `ns.approval.approved` or `ns.approval.rejected` is recorded. Only a principal ' +
        'credential of that principal may decide (any other, an admin too, is 403); an approval that is no ' +
        "longer pending or has expired is 409 `conflict`. The agent's retry then consumes an approved one, once.",
      params: IdParams,
      body: DecisionBody,
      response: { 200: Approval },
    },
    handler: async (req) =>
      (await withBaskets(ctx, [await decideApproval(ctx, req.credential, req.params.id, req.body)]))[0],
  });
}
