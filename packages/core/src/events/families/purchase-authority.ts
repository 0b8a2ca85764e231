/** `ns.purchase_authority.*`: authorize decisions that allow or deny, and the outcomes of allowed purchases. */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, id, MONEY, nullable, stateChange, subject } from '../schema-parts.ts';
import { decisionData, OPTIONAL_DECISION_DATA, reasonsOf } from './decision-data.ts';

const DECISION = subject(['decision'], 'the decision, `ns:decision:<uuid>`');

function outcome(name: 'executed' | 'failed' | 'refunded', from: string, when: string) {
  return defineEventType({
    event_type: `ns.purchase_authority.${name}`,
    description: `${when} (\`POST /v1/runtime/outcomes\`)`,
    subject_ref: DECISION,
    reason_codes: [`purchase_${name}`],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      ...stateChange([from], [name]),
      amount: { ...MONEY, description: 'the reserved amount' },
      reported_by: nullable(id('token', 'the credential that reported the outcome')),
    }),
  });
}

export const PURCHASE_AUTHORITY_EVENTS = [
  defineEventType({
    event_type: 'ns.purchase_authority.allowed',
    description:
      'an authorize decision is `allow_with_constraints` (every action; for `execute` the amount is reserved ' +
      'against the daily limits); carries the decision\u2019s `audit_ref` and evidence pack',
    subject_ref: DECISION,
    reason_codes: reasonsOf('allow_with_constraints'),
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    named_in_spec: true,
    data_schema: closedObject(decisionData('allow_with_constraints'), OPTIONAL_DECISION_DATA),
  }),
  defineEventType({
    event_type: 'ns.purchase_authority.denied',
    description: 'an authorize decision is `deny`; carries the decision\u2019s `audit_ref` and evidence pack',
    subject_ref: DECISION,
    reason_codes: reasonsOf('deny'),
    rule_reasons: true,
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    named_in_spec: true,
    data_schema: closedObject(decisionData('deny'), OPTIONAL_DECISION_DATA),
  }),
  outcome('executed', 'reserved', 'an allowed purchase was executed: its reservation is settled'),
  outcome('failed', 'reserved', 'an allowed purchase failed before execution: its reservation is released'),
  outcome('refunded', 'executed', 'an executed purchase was refunded: its reservation is released'),
];
