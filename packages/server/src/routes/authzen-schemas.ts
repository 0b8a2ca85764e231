/**
 * The AuthZEN Authorization API 1.0 shapes (OpenID AuthZEN, final 2026-01-11: sections 5 "Information Model", 6
 * "Access Evaluation API", 7 "Access Evaluations API", 8 "Search APIs", 9 "Policy Decision Point Metadata"), written
 * by this project from the specification's text as JSON Schemas (TypeBox). The routes validate requests with them,
 * the OpenAPI document publishes them, and the tests validate every response against them.
 * Per the specification: `subject` needs `type` and `id`, `resource` `type` and `id`, `action` `name`; `properties`
 * and `context` are open objects. This service relaxes one thing for its purchase mapping (CONTRACT section 20): a
 * purchase resource's `id` is optional. Members the specification does not define are refused at the top level and
 * kept (as the specification allows) inside `properties` and `context`.
 */
import { Type, type TSchema } from 'typebox';

const Id = Type.String({ minLength: 1, maxLength: 1024 });
const Properties = Type.Record(Type.String(), Type.Unknown(), {
  description: 'further attributes of the entity (open, as AuthZEN section 5 allows)',
});

export const AuthzenSubject = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 128, description: '`agent` for the purchase mapping' }),
    id: Id,
    properties: Type.Optional(Properties),
  },
  { additionalProperties: false, description: 'AuthZEN section 5.1' },
);

export const AuthzenResource = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 128, description: '`purchase` for the purchase mapping' }),
    id: Type.Optional(Id),
    properties: Type.Optional(Properties),
  },
  { additionalProperties: false, description: 'AuthZEN section 5.2' },
);

export const AuthzenAction = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'a capability id or `purchase.<action>` (the purchase mapping); any other name: the generic packs',
    }),
    properties: Type.Optional(Properties),
  },
  { additionalProperties: false, description: 'AuthZEN section 5.3' },
);

export const AuthzenContext = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'AuthZEN section 5.4. Purchase mapping: `principal_entity_id`, `policy_decision_id?`, `agent_request?` ' +
    '(`{ method, target_uri, headers, body? }`, the agent\u2019s RFC 9421-signed request as the PEP received it)',
});

export const AuthzenEvaluationRequest = Type.Object(
  {
    subject: AuthzenSubject,
    action: AuthzenAction,
    resource: AuthzenResource,
    context: Type.Optional(AuthzenContext),
  },
  { additionalProperties: false, description: 'AuthZEN section 6.1' },
);

const DecisionContext = Type.Record(Type.String(), Type.Unknown(), {
  description: '`aar`: the authorize response (purchases) or the signed `ns.access_decision.v1` and its refs',
});

export const AuthzenEvaluationResponse = Type.Object(
  {
    decision: Type.Boolean({ description: 'true only for `allow_with_constraints` (purchases) or `permit` (generic)' }),
    context: Type.Optional(DecisionContext),
  },
  { additionalProperties: false, description: 'AuthZEN sections 5.5 and 6.2' },
);

/**
 * A batch's defaults and items may each be partial (a PEP sends `"resource": {}` as the default when every item names
 * its own, as the Todo interop does): the members are typed here, and what an evaluation needs is checked once each
 * item is merged with the defaults (400 naming `/evaluations/<i>/…`, services/authzen/evaluate.ts).
 */
const Partial = <T extends TSchema>(schema: T) => Type.Optional(Type.Partial(schema));

export const AuthzenEvaluationItem = Type.Object(
  {
    subject: Partial(AuthzenSubject),
    action: Partial(AuthzenAction),
    resource: Partial(AuthzenResource),
    context: Type.Optional(AuthzenContext),
  },
  { additionalProperties: false, description: 'one item: each member present replaces the request-level default' },
);

export const EvaluationsSemantic = Type.Union(
  [Type.Literal('execute_all'), Type.Literal('deny_on_first_deny'), Type.Literal('permit_on_first_permit')],
  { description: 'AuthZEN section 7.1.2; default `execute_all`' },
);

export const AuthzenEvaluationsRequest = Type.Object(
  {
    subject: Partial(AuthzenSubject),
    action: Partial(AuthzenAction),
    resource: Partial(AuthzenResource),
    context: Type.Optional(AuthzenContext),
    evaluations: Type.Optional(Type.Array(AuthzenEvaluationItem, { description: 'at most 100 items' })),
    options: Type.Optional(
      Type.Object(
        { evaluations_semantic: Type.Optional(EvaluationsSemantic) },
        { additionalProperties: true, description: 'AuthZEN section 7.1.2' },
      ),
    ),
  },
  { additionalProperties: false, description: 'AuthZEN section 7.1' },
);

export const AuthzenEvaluationsResponse = Type.Object(
  {
    evaluations: Type.Array(AuthzenEvaluationResponse, {
      description:
        'in request order; with `deny_on_first_deny` / `permit_on_first_permit` it ends at the first deny / permit',
    }),
  },
  { additionalProperties: false, description: 'AuthZEN section 7.2' },
);

/** The answer of the evaluations endpoint: a batch, or one decision when the request had no `evaluations`. */
export const AuthzenEvaluationsAnswer = Type.Union([AuthzenEvaluationsResponse, AuthzenEvaluationResponse]);

export const AuthzenPdpMetadata = Type.Object(
  {
    policy_decision_point: Type.String({ description: 'this PDP\u2019s base URL (its first public URL)' }),
    access_evaluation_endpoint: Type.String(),
    access_evaluations_endpoint: Type.String(),
    search_subject_endpoint: Type.String(),
    search_resource_endpoint: Type.String(),
    search_action_endpoint: Type.String(),
  },
  { additionalProperties: false, description: 'AuthZEN section 9' },
);

const Page = Type.Object(
  {
    token: Type.Optional(Type.String({ maxLength: 512, description: 'the `next_token` of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'default 50' })),
  },
  { additionalProperties: false, description: 'AuthZEN section 8.2' },
);

export const AuthzenSearchSubjectRequest = Type.Object(
  {
    subject: Type.Object(
      {
        type: Type.String({ minLength: 1, maxLength: 128 }),
        id: Type.Optional(Id),
        properties: Type.Optional(Properties),
      },
      { additionalProperties: false, description: 'the type searched for; `id` is ignored' },
    ),
    action: AuthzenAction,
    resource: AuthzenResource,
    context: Type.Optional(AuthzenContext),
    page: Type.Optional(Page),
  },
  { additionalProperties: false, description: 'AuthZEN section 8.4' },
);

export const AuthzenSearchResourceRequest = Type.Object(
  {
    subject: AuthzenSubject,
    action: AuthzenAction,
    resource: Type.Object(
      {
        type: Type.String({ minLength: 1, maxLength: 128 }),
        id: Type.Optional(Id),
        properties: Type.Optional(Properties),
      },
      { additionalProperties: false, description: 'the type searched for; `id` is ignored' },
    ),
    context: Type.Optional(AuthzenContext),
    page: Type.Optional(Page),
  },
  { additionalProperties: false, description: 'AuthZEN section 8.5' },
);

export const AuthzenSearchActionRequest = Type.Object(
  {
    subject: AuthzenSubject,
    resource: AuthzenResource,
    context: Type.Optional(AuthzenContext),
    page: Type.Optional(Page),
  },
  { additionalProperties: false, description: 'AuthZEN section 8.6' },
);

const ResultPage = Type.Object(
  { next_token: Type.String({ description: 'empty on the last page' }) },
  { additionalProperties: false },
);

export const AuthzenSearchEntityResponse = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        { type: Type.String(), id: Type.String(), properties: Type.Optional(Properties) },
        { additionalProperties: false },
      ),
    ),
    page: ResultPage,
  },
  { additionalProperties: false, description: 'AuthZEN section 8.3' },
);

export const AuthzenSearchActionResponse = Type.Object(
  {
    results: Type.Array(Type.Object({ name: Type.String() }, { additionalProperties: false })),
    page: ResultPage,
  },
  { additionalProperties: false, description: 'AuthZEN section 8.3' },
);
