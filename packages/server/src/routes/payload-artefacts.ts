import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { executeArtefact } from '../services/payload-artefacts/execute-artefact.ts';
import { getArtefact, listArtefacts } from '../services/payload-artefacts/read-artefacts.ts';
import { receiveArtefact } from '../services/payload-artefacts/receive-artefact.ts';
import { pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import { IdParams, MoneySchema, Timestamp } from './schemas.ts';

const PREVIEW =
  'PREVIEW (SPEC "Preview"): the payload trust lifecycle may change incompatibly until v1.1 is frozen ' +
  '(docs/artefacts.md). ';
const KINDS = ['checkout', 'basket', 'payment_instruction'] as const;
const B64URL_SHA256 = '^[A-Za-z0-9_-]{43}$';
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const Kind = Type.Union([Type.Literal(KINDS[0]), Type.Literal(KINDS[1]), Type.Literal(KINDS[2])], {
  description: 'what the payload is',
});

const SignatureObject = Type.Object(
  {
    algorithm: Type.Literal('ed25519'),
    key_id: Type.String({ minLength: 1, maxLength: 256 }),
    signature: Type.String({ pattern: '^[A-Za-z0-9_-]{86}$', description: 'base64url Ed25519 signature (64 bytes)' }),
  },
  { additionalProperties: false },
);

const ReceiveBody = Type.Object(
  {
    kind: Kind,
    digest: Type.String({ pattern: B64URL_SHA256, description: 'base64url (unpadded) SHA-256 of the payload bytes' }),
    signature: Type.Optional({
      ...SignatureObject,
      description:
        'the agent\u2019s signature (CONTRACT section 4 form, `key_id` its entity id) over ' +
        '`{ schema_version: "ns.payload_artefact_statement.v1", kind, digest, policy_decision_id }`; required ' +
        'when the agent has a registered key',
    }),
    policy_decision_id: Type.String({ maxLength: 128, description: 'the allowed `execute` decision it carries out' }),
    mandate_id: Type.Optional(
      Type.String({ maxLength: 128, description: 'the mandate or allowance the decision was made under' }),
    ),
  },
  { additionalProperties: false },
);

const ExecuteBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('executed'), Type.Literal('failed')], {
      description: '`executed` settles the decision\u2019s reservation, `failed` releases it',
    }),
  },
  { additionalProperties: false },
);

const Transition = Type.Object(
  {
    state: Type.Union([
      Type.Literal('received'),
      Type.Literal('verified'),
      Type.Literal('rejected'),
      Type.Literal('executed'),
    ]),
    at: Timestamp,
    event_id: Type.String(),
    audit_ref: Type.String(),
  },
  { additionalProperties: false },
);

const PayloadArtefact = Type.Object(
  {
    schema_version: Type.Literal('ns.payload_artefact.v1'),
    payload_artefact_id: Type.String({ description: '`ns:payload_artefact:<uuid>`' }),
    issuer: Type.String(),
    kind: Kind,
    digest: Type.String(),
    agent_signature: nullable(SignatureObject),
    agent_key_thumbprint: nullable(Type.String()),
    policy_decision_id: Type.String(),
    mandate_id: nullable(Type.String()),
    actor_entity_id: nullable(Type.String()),
    principal_entity_id: nullable(Type.String()),
    basket_hash: nullable(Type.String()),
    amount: nullable(MoneySchema),
    state: Type.Union([Type.Literal('verified'), Type.Literal('rejected'), Type.Literal('executed')]),
    reason: nullable(Type.String({ description: 'rejected only: why (docs/artefacts.md)' })),
    outcome: nullable(Type.Union([Type.Literal('executed'), Type.Literal('failed')])),
    received_at: Timestamp,
    decided_at: Timestamp,
    executed_at: nullable(Timestamp),
    transitions: Type.Array(Transition),
    signature: Type.Object(
      { algorithm: Type.Literal('ed25519'), key_id: Type.String(), signature: Type.String() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'ns.payload_artefact.v1 (schemas/ns.payload_artefact.v1.schema.json)' },
);

/** payload artefacts (CONTRACT 22); every operation `x-preview: true`. */
export async function payloadArtefactRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['payload-artefacts'];
  const preview = { 'x-preview': true };

  r.post('/v1/payload-artefacts', {
    config: { roles: ['runtime'], errors: ['invalid_id'] },
    schema: {
      ...preview,
      tags,
      summary: 'Present a payload the agent is about to execute: verified against its decision, or rejected',
      operationId: 'createPayloadArtefact',
      description:
        PREVIEW +
        'Receives the checkout payload, basket or payment instruction an agent is about to execute, by its SHA-256 ' +
        'digest, and binds it to an allowed `execute` decision: the decision must exist, be allowed, be an ' +
        '`execute`, be at most 15 minutes old and still reserved; the agent\u2019s signature must verify with the ' +
        'key registered on the decision\u2019s agent (required when it has one); a named mandate must be the ' +
        'decision\u2019s; a `basket` must hash to the decision\u2019s `basket_hash`; the decision may have one live ' +
        'artefact. Answers 201 with the signed `ns.payload_artefact.v1` in state `verified`, or `rejected` with ' +
        'the `reason` of the first check that failed. Writes `ns.payload_artefact.received` and `.verified` or ' +
        '`.rejected`. Runtime or admin.',
      body: ReceiveBody,
      response: { 201: PayloadArtefact },
    },
    handler: async (req, reply) => reply.code(201).send(await receiveArtefact(ctx, req.credential, req.body)),
  });

  r.post('/v1/payload-artefacts/:id/execute', {
    config: { roles: ['runtime'], errors: ['invalid_id', 'not_found', 'artefact_not_executable'] },
    schema: {
      ...preview,
      tags,
      summary: 'Execute a verified payload artefact: record the outcome and settle its decision\u2019s reservation',
      operationId: 'executePayloadArtefact',
      description:
        PREVIEW +
        'Moves a `verified` artefact to `executed` with the reported outcome and, in the same transaction, settles ' +
        '(`executed`) or releases (`failed`) its decision\u2019s reservation exactly as POST /v1/runtime/outcomes ' +
        'does. An artefact that is not `verified` (rejected, or executed already), or whose decision is not an ' +
        'allowed `execute` still reserved, is refused with 422 `artefact_not_executable` (`refusal` names why) ' +
        'and an `ns.payload_artefact.execution_refused` event, which is all a refusal writes. Runtime or admin.',
      params: IdParams,
      body: ExecuteBody,
      response: { 200: PayloadArtefact },
    },
    handler: async (req) => executeArtefact(ctx, req.credential, req.params.id, req.body.outcome),
  });

  r.get('/v1/payload-artefacts/:id', {
    config: { roles: ['runtime', 'auditor'], errors: ['invalid_id', 'not_found'] },
    schema: {
      ...preview,
      tags,
      summary: 'A payload artefact as it stands (signed)',
      operationId: 'getPayloadArtefact',
      description:
        PREVIEW +
        'The signed `ns.payload_artefact.v1`: its state, the decision it is bound to and each transition with the ' +
        'event and audit entry that chain it. Runtime, auditor or admin.',
      params: IdParams,
      response: { 200: PayloadArtefact },
    },
    handler: async (req) => getArtefact(ctx, req.params.id),
  });

  r.get('/v1/payload-artefacts', {
    config: { roles: ['runtime', 'auditor'], errors: ['invalid_id', 'invalid_request'] },
    schema: {
      ...preview,
      tags,
      summary: 'The payload artefacts presented against one decision',
      operationId: 'listPayloadArtefacts',
      description:
        PREVIEW +
        'Every artefact presented against `policy_decision_id` (verified, rejected or executed), oldest first, ' +
        'paginated. Runtime, auditor or admin.',
      querystring: Type.Object(
        { policy_decision_id: Type.String({ maxLength: 128 }), ...pageQueryProperties },
        { additionalProperties: false },
      ),
      response: { 200: pageSchema(PayloadArtefact) },
    },
    handler: async (req) => listArtefacts(ctx, req.query.policy_decision_id, pageRequest(req.query)),
  });
}
