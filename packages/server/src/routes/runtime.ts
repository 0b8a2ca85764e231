import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { authorize } from '../services/authorize/authorize.ts';
import type { AuthorizeBody as AuthorizeBodyInput } from '../services/authorize/normalize-request.ts';
import type { GrantLinkVerifier } from '../services/authorize/grant-link-verifier.ts';
import { recordOutcome } from '../services/outcomes/record-outcome.ts';
import { ApprovalStatusSchema, DecisionSchema, ReasonCodeSchema } from './schemas.ts';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

const AuthorizeBody = Type.Object(
  {
    actor_entity_id: Type.String({ description: 'the agent (`ns:entity:agent:<id>`, `ns:agent:<id>` accepted)' }),
    principal_entity_id: Type.String({ description: 'the person or organisation the agent acts for' }),
    subject: Type.String({
      description: '`ns:capability:payment_action:card_purchase` (execute) or `ns:capability:purchase:<action>`',
    }),
    resource: Type.Optional(
      Type.Object(
        {
          merchant_id: Type.Optional(Type.String({ description: 'plain merchant id' })),
          amount: Type.Optional(Type.Number({ description: 'major units; no more decimals than the currency has' })),
          currency: Type.Optional(Type.String({ description: 'ISO 4217 alpha-3' })),
        },
        { additionalProperties: false },
      ),
    ),
    scope: Type.Optional(
      Type.Object(
        {
          instrument: Type.Optional(
            Type.String({
              description:
                'the card token, `ns:card_token:<id>` (its credential id `ns:credential:card-token:<id>` is accepted ' +
                'and recorded as `ns:card_token:<id>`)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    basket: Type.Optional(
      Type.Object(
        { items: Type.Array(Type.Unknown(), { maxItems: 1000 }) },
        { additionalProperties: true, description: 'bound to the decision by its SHA-256 (JCS)' },
      ),
    ),
    policy_decision_id: Type.Optional(
      Type.String({ description: 'the retry of a `require_approval` decision names it' }),
    ),
    context: Type.Optional(Open('free-form, recorded in evidence, never decisive')),
    mandate: Type.Optional(
      Type.Object(
        {
          mandate_id: Type.Optional(
            Type.String({ description: 'a registered mandate or allowance: `ns:mandate:<id>`, `ns:allowance:<id>`' }),
          ),
          presentation: Type.Optional(
            Type.String({
              maxLength: 65536,
              description:
                'an AP2 presentation whose open part is a registered mandate, closed for exactly this purchase ' +
                "(`<open>~~<closed hop>`): its amount, payee and instrument must be the request's",
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'the mandate this purchase is made under (CONTRACT section 21), exactly one of `mandate_id` and ' +
            "`presentation`: the purchase is then decided by that mandate's grant only; a grant made from a " +
            'mandate is used only when the request names it',
        },
      ),
    ),
    agent_metadata: Type.Optional(
      Type.Object(
        {
          model: Type.String({ minLength: 1, maxLength: 256 }),
          software_version: Type.String({ minLength: 1, maxLength: 256 }),
          operator: Type.String({ minLength: 1, maxLength: 256 }),
        },
        {
          additionalProperties: false,
          description:
            'PREVIEW (issue 30): the model, software version and operator the agent runs as; it must equal the ' +
            "agent's latest attestation (`POST /v1/entities/{id}/metadata-attestations`, signed with the agent's own " +
            'key), else the decision is `deny` / `agent_metadata_mismatch` (aar-decide/1.5.0)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const Obligation = Type.Object({ type: Type.String(), basket_hash: Type.Optional(Type.String()) });

const AuthorizeResponse = Type.Object({
  policy_decision_id: Type.String(),
  decision: DecisionSchema,
  reason: ReasonCodeSchema,
  obligations: Type.Array(Obligation),
  stop_conditions: Type.Array(Type.String()),
  evidence_refs: Type.Array(Type.String()),
  decision_map_ref: Type.String(),
  audit_ref: Type.String(),
  decision_map: Open('the signed decision map (`ns.decision_map.v1`)'),
  approval: Type.Optional(
    Type.Object(
      { approval_id: Type.String(), status: ApprovalStatusSchema, expires_at: Type.String() },
      {
        description:
          'on `require_approval`, and on an allowed `purchase.request_approval`: the approval pushed to the principal',
      },
    ),
  ),
});

const OutcomeBody = Type.Object(
  {
    policy_decision_id: Type.String(),
    outcome: Type.Union([Type.Literal('executed'), Type.Literal('failed'), Type.Literal('refunded')]),
  },
  { additionalProperties: false },
);

const DecisionOutcome = Type.Union([
  Type.Literal('none'),
  Type.Literal('reserved'),
  Type.Literal('executed'),
  Type.Literal('failed'),
  Type.Literal('refunded'),
]);

const OutcomeResponse = Type.Object({
  policy_decision_id: Type.String(),
  outcome: DecisionOutcome,
  previous_outcome: DecisionOutcome,
  released: Type.Union([Type.Object({ amount: Type.Number(), currency: Type.String() }), Type.Null()]),
});

const SIGNATURE_HEADERS = Type.Object(
  {
    signature: Type.Optional(Type.String({ description: 'RFC 9421 signature of the agent' })),
    'signature-input': Type.Optional(
      Type.String({ description: 'covers @method, @target-uri, content-digest; created, nonce, keyid' }),
    ),
    'content-digest': Type.Optional(Type.String({ description: 'RFC 9530 digest of the body' })),
  },
  { additionalProperties: true },
);

export async function runtimeRoutes(app: FastifyInstance, ctx: AppContext, verifier: GrantLinkVerifier): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['runtime'];

  r.post('/v1/runtime/authorize', {
    config: {
      roles: ['runtime'],
      grantVersion: true,
      errors: ['invalid_id', 'invalid_amount', 'unknown_currency', 'mandate_invalid'],
    },
    schema: {
      tags,
      summary: 'Decide whether the agent may take the action (HTTP 200 for every decision)',
      operationId: 'authorize',
      description:
        'Runs the contract checks in order and answers `allow_with_constraints`, `require_approval` or `deny` with ' +
        'one reason code, always HTTP 200: a 4xx means the request itself was malformed, never a refusal. The ' +
        'decision, its signed decision map and its audit entry are committed before the answer; an allowed ' +
        '`execute` reserves the amount against the daily limits until POST /v1/runtime/outcomes settles it. Agents ' +
        'with a registered key sign the request (RFC 9421, `signature`, `signature-input`, `content-digest`).',
      headers: SIGNATURE_HEADERS,
      body: AuthorizeBody,
      response: { 200: AuthorizeResponse },
    },
    handler: async (req) => authorize(ctx, verifier, req, req.body as AuthorizeBodyInput),
  });

  r.post('/v1/runtime/outcomes', {
    config: { roles: ['runtime'], errors: ['invalid_id', 'not_found', 'conflict'] },
    schema: {
      tags,
      summary: 'Settle or release the reservation of an allowed purchase',
      operationId: 'recordOutcome',
      description:
        'Reports what happened to an allowed `execute`: `executed` settles its reservation, `failed` releases it, ' +
        '`refunded` (after `executed`) gives the amount back to the daily limits; records ' +
        '`ns.purchase_authority.<outcome>`. Repeating the current outcome is a no-op; any other move is 409 ' +
        '`conflict`, as is a decision that reserved nothing. An unknown decision is 404.',
      body: OutcomeBody,
      response: { 200: OutcomeResponse },
    },
    handler: async (req) => recordOutcome(ctx, req.credential, req.body.policy_decision_id, req.body.outcome),
  });
}
