/** `ns.approval.*`: the principal's answer to a `require_approval` decision, or its lapse. */
import { defineEventType } from '../event-type-definition.ts';
import { BOOLEAN, closedObject, id, stateChange, subject } from '../schema-parts.ts';

const APPROVAL = subject(['approval'], 'the approval, `ns:approval:<uuid>`');

export const APPROVAL_EVENTS = [
  defineEventType({
    event_type: 'ns.approval.approved',
    description:
      'the principal approves (`POST /v1/approvals/{id}/decision`): the agent\u2019s retry with the ' +
      '`policy_decision_id` may be allowed once',
    subject_ref: APPROVAL,
    reason_codes: ['approved_by_principal'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      policy_decision_id: id('decision', 'the decision that required the approval'),
      ...stateChange(['pending'], ['approved']),
      has_sca_reference: { ...BOOLEAN, description: 'the principal passed strong customer authentication' },
    }),
  }),
  defineEventType({
    event_type: 'ns.approval.rejected',
    description: 'the principal rejects (`POST /v1/approvals/{id}/decision`): a retry is denied',
    subject_ref: APPROVAL,
    reason_codes: ['rejected_by_principal'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      policy_decision_id: id('decision', 'the decision that required the approval'),
      ...stateChange(['pending'], ['rejected']),
      has_sca_reference: BOOLEAN,
    }),
  }),
  defineEventType({
    event_type: 'ns.approval.expired',
    description:
      'a pending approval passed its `expires_at` undecided (announced once, by the service\u2019s periodic sweep): ' +
      'a retry is denied (`approval_expired`); the principal\u2019s app may withdraw the request it shows',
    subject_ref: APPROVAL,
    reason_codes: ['approval_expired'],
    principal_entity_id: 'always',
    actor_entity_id: 'never',
    data_schema: closedObject({
      policy_decision_id: id('decision', 'the decision that required the approval'),
      ...stateChange(['pending'], ['expired']),
    }),
  }),
];
