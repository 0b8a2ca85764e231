/** `ns.decision.*`: decisions that need the principal, and replays that disagree with their record. */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, id, nullable, subject } from '../schema-parts.ts';
import { APPROVAL_DATA, decisionData, OPTIONAL_DECISION_DATA, reasonsOf } from './decision-data.ts';

const OUTCOME = closedObject({
  decision: nullable({ type: 'string' }),
  reason: nullable({ type: 'string' }),
});

export const DECISION_EVENTS = [
  defineEventType({
    event_type: 'ns.decision.requires_approval',
    description:
      'the push to the principal\u2019s banking app, naming the approval to decide ' +
      '(`POST /v1/approvals/{id}/decision`) before it expires: an authorize decision is `require_approval`, or an ' +
      'agent\u2019s `purchase.request_approval` is allowed (`decision` `allow_with_constraints`, an allow reason)',
    subject_ref: subject(['decision'], 'the decision, `ns:decision:<uuid>`'),
    reason_codes: reasonsOf('require_approval', 'allow_with_constraints'),
    rule_reasons: true,
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    named_in_spec: true,
    data_schema: closedObject(
      { ...decisionData('require_approval', 'allow_with_constraints'), ...APPROVAL_DATA },
      OPTIONAL_DECISION_DATA,
    ),
  }),
  defineEventType({
    event_type: 'ns.decision.replay_mismatch',
    description:
      'an evidence pack the service signed is verified (`POST /v1/evidence-packs/verify`) and replaying its ' +
      'decision gives another answer (decision, reason, obligations or stop conditions) than the one recorded: ' +
      '`engine_version` is the engine that decided, `replay_engine_version` the one that replayed (an engine ' +
      'change when they differ)',
    subject_ref: subject(['decision'], 'the decision whose replay differs'),
    reason_codes: ['replay_mismatch'],
    principal_entity_id: 'sometimes',
    actor_entity_id: 'always',
    named_in_spec: true,
    data_schema: closedObject(
      {
        policy_decision_id: id('decision'),
        evidence_pack_id: id('evidence_pack'),
        engine_version: { type: 'string', minLength: 1 },
        replay_engine_version: { type: 'string', minLength: 1 },
        recorded: OUTCOME,
        replayed: OUTCOME,
      },
      // optional: events written before it was recorded lack it
      ['replay_engine_version'],
    ),
  }),
];
