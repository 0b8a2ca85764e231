/**
 * `ns.payload_artefact.*` (CONTRACT section 22, issue 30; docs/artefacts.md): the payload an agent is about to execute
 * (a checkout payload, a basket or a payment instruction), known by its digest, bound to an allowed decision, then
 * executed. Ids and digests only: the payload itself never reaches aar, and no event carries more than its digest.
 * Each transition is one event, so each has its audit entry: received -> verified | rejected -> executed. A refused
 * execution (`execution_refused`) changes no state and is still written, with its own audit entry.
 */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, id, MONEY, nullable, oneOf, type JsonSchema } from '../schema-parts.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ARTEFACT_ID = `ns:payload_artefact:${UUID}`;
const SUBJECT = { description: 'the payload artefact, `ns:payload_artefact:<uuid>`', pattern: `^${ARTEFACT_ID}$` };

/** Why a payload artefact is `rejected`, in the order the checks run (docs/artefacts.md "Reasons"). */
export const PAYLOAD_ARTEFACT_REJECTIONS = [
  'decision_unknown',
  'decision_not_allowed',
  'decision_not_execute',
  'decision_expired',
  'decision_settled',
  'signature_missing',
  'signature_key_unknown',
  'signature_invalid',
  'mandate_mismatch',
  'basket_not_bound',
  'basket_mismatch',
  'decision_has_artefact',
] as const;

/** Why an execution is refused (422 `artefact_not_executable`, docs/artefacts.md "Execution"). */
export const PAYLOAD_ARTEFACT_EXECUTION_REFUSALS = [
  'artefact_rejected',
  'artefact_executed',
  'decision_unknown',
  'decision_not_allowed',
  'decision_not_execute',
  'decision_settled',
] as const;

const artefactId: JsonSchema = { type: 'string', pattern: `^${ARTEFACT_ID}$`, description: 'the payload artefact' };
const KIND = oneOf(['checkout', 'basket', 'payment_instruction'], 'what the payload is');
const DIGEST: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{43}$',
  description: 'base64url SHA-256 of the payload bytes, as the caller gave it',
};
const MANDATE: JsonSchema = nullable({
  type: 'string',
  pattern: `^ns:(mandate|allowance):${UUID}$`,
  description: 'the mandate or allowance the artefact names (received) or the decision was made under (verified)',
});
const FACTS_DIGEST: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{43}$',
  description:
    'base64url SHA-256 of the RFC 8785 bytes of the artefact row\u2019s fixed facts (audit verify recomputes it)',
};
const DECISION_ID = id('decision', 'the decision the artefact is presented against (it may not exist: rejected)');

export const PAYLOAD_ARTEFACT_EVENTS = [
  defineEventType({
    event_type: 'ns.payload_artefact.received',
    description:
      'a payload artefact is presented (`POST /v1/payload-artefacts`); its `verified` or `rejected` follows in the ' +
      'same transaction',
    subject_ref: SUBJECT,
    reason_codes: ['payload_received'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    data_schema: closedObject({
      payload_artefact_id: artefactId,
      kind: KIND,
      digest: DIGEST,
      policy_decision_id: DECISION_ID,
      mandate_id: MANDATE,
      signed: { type: 'boolean', description: 'whether the agent\u2019s signature came with it' },
    }),
  }),
  defineEventType({
    event_type: 'ns.payload_artefact.verified',
    description:
      'a payload artefact is bound to an allowed `execute` decision: its agent, mandate and basket hash agree ' +
      '(and its signature, when the agent has a key); it may now be executed once',
    subject_ref: SUBJECT,
    reason_codes: ['payload_verified'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      payload_artefact_id: artefactId,
      kind: KIND,
      digest: DIGEST,
      policy_decision_id: id('decision', 'the allowed decision it is bound to'),
      agent_entity_id: id('entity', 'the decision\u2019s agent'),
      mandate_id: MANDATE,
      basket_hash: nullable({ type: 'string', pattern: '^sha-256:[A-Za-z0-9_-]{43}$' }),
      agent_key_thumbprint: nullable({
        type: 'string',
        pattern: '^[A-Za-z0-9_-]{43}$',
        description: 'RFC 7638 thumbprint of the agent key that verified its signature; null when unsigned',
      }),
      facts_digest: FACTS_DIGEST,
    }),
  }),
  defineEventType({
    event_type: 'ns.payload_artefact.rejected',
    description:
      'a payload artefact is not bound to an allowed decision; `reason_code` says why (docs/artefacts.md); it can ' +
      'never be executed',
    subject_ref: SUBJECT,
    reason_codes: PAYLOAD_ARTEFACT_REJECTIONS,
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    data_schema: closedObject({
      payload_artefact_id: artefactId,
      kind: KIND,
      digest: DIGEST,
      policy_decision_id: DECISION_ID,
      mandate_id: MANDATE,
      reason: oneOf(PAYLOAD_ARTEFACT_REJECTIONS, 'the same as `reason_code`'),
      facts_digest: FACTS_DIGEST,
    }),
  }),
  defineEventType({
    event_type: 'ns.payload_artefact.executed',
    description:
      'a verified payload artefact is executed (`POST /v1/payload-artefacts/{id}/execute`); its decision\u2019s ' +
      'reservation is settled (`executed`) or released (`failed`) in the same transaction, with the decision\u2019s ' +
      'own `ns.purchase_authority.<outcome>`',
    subject_ref: SUBJECT,
    reason_codes: ['payload_executed', 'payload_failed'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      payload_artefact_id: artefactId,
      policy_decision_id: id('decision', 'its decision, whose reservation the outcome settled or released'),
      previous_state: oneOf(['verified'], 'the artefact\u2019s state before'),
      new_state: oneOf(['executed'], 'the artefact\u2019s state after'),
      outcome: oneOf(['executed', 'failed'], 'what happened to the payment'),
      amount: MONEY,
    }),
  }),
  defineEventType({
    event_type: 'ns.payload_artefact.execution_refused',
    description:
      'an execution was asked of an artefact that is not `verified`, or whose decision is not an allowed, still ' +
      'reserved `execute`: answered 422 `artefact_not_executable`; nothing else is written',
    subject_ref: SUBJECT,
    reason_codes: PAYLOAD_ARTEFACT_EXECUTION_REFUSALS,
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    data_schema: closedObject({
      payload_artefact_id: artefactId,
      policy_decision_id: DECISION_ID,
      state: oneOf(['verified', 'rejected', 'executed'], 'the artefact\u2019s state, unchanged'),
      outcome: oneOf(['executed', 'failed'], 'the outcome the refused request reported'),
      refusal: oneOf(PAYLOAD_ARTEFACT_EXECUTION_REFUSALS, 'the same as `reason_code`'),
    }),
  }),
];
