/** `ns.risk.*`: risk states set by an external risk engine (POST /v1/risk-signals). */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, nullable, stateChange, subject, TIMESTAMP } from '../schema-parts.ts';

const RISK_STATES = ['normal', 'elevated', 'blocked'];

export const RISK_EVENTS = [
  defineEventType({
    event_type: 'ns.risk.state_changed',
    description:
      'a risk signal sets the risk state of an entity or card token (`POST /v1/risk-signals`): `blocked` denies, ' +
      '`elevated` requires approval, `normal` clears; `previous_state` is the state in force (a lapsed one is normal)',
    subject_ref: subject(['entity', 'card_token'], 'the entity or card token'),
    reason_codes: RISK_STATES.map((s) => `risk_${s}`),
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      ...stateChange(RISK_STATES, RISK_STATES),
      expires_at: nullable({ ...TIMESTAMP, description: 'when the state lapses back to normal; null: never' }),
    }),
  }),
];
