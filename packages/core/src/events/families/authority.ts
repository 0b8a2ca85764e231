/** `ns.authority.*`: authority grants, their delegation and their revocation (POST /v1/grants, revoke). */
import { PURCHASE_ACTIONS } from '../../decide/action-from-subject.ts';
import { defineEventType } from '../event-type-definition.ts';
import {
  BOOLEAN,
  closedObject,
  id,
  MONEY,
  oneOf,
  stateChange,
  subject,
  TIMESTAMP,
  type JsonSchema,
} from '../schema-parts.ts';

const GRANT = subject(['grant'], 'the grant');
const CATEGORIES: JsonSchema = {
  type: 'array',
  items: { type: 'string', pattern: '^([0-9]{4}|[a-z][a-z0-9_]{0,63})$' },
  uniqueItems: true,
};

/** A grant's scope on the wire (money in major units); every member optional (docs/delegation.md). */
const SCOPE_MEMBERS: Readonly<Record<string, JsonSchema>> = {
  max_amount_per_purchase: MONEY,
  max_daily_amount: MONEY,
  requires_approval_above: MONEY,
  allowed_merchant_categories: CATEGORIES,
  blocked_merchant_categories: CATEGORIES,
  allowed_jurisdictions: { type: 'array', items: { type: 'string', pattern: '^[A-Z]{2}$' }, uniqueItems: true },
  valid_until: TIMESTAMP,
  allowed_actions: { type: 'array', items: oneOf(PURCHASE_ACTIONS.map((a) => `purchase.${a}`)), uniqueItems: true },
  may_delegate: BOOLEAN,
  max_delegation_depth: { type: 'integer', minimum: 0, maximum: 16 },
  // issue 29: a cumulative budget (CONTRACT 21) and the merchants a mandate's or allowance's grant allows
  budget: {
    type: 'object',
    properties: {
      ...(MONEY as { properties: Record<string, JsonSchema> }).properties,
      period: oneOf(['day', 'week', 'month', 'year', 'total']),
    },
    required: ['amount', 'currency', 'period'],
    additionalProperties: false,
  },
  allowed_merchants: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
};
const SCOPE = closedObject(SCOPE_MEMBERS, Object.keys(SCOPE_MEMBERS));

export const AUTHORITY_EVENTS = [
  defineEventType({
    event_type: 'ns.authority.granted',
    description: 'a principal grants an agent authority over a card token (`POST /v1/grants` without a parent)',
    subject_ref: GRANT,
    reason_codes: ['principal_granted_authority'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      new_state: oneOf(['active']),
      grantee_entity_id: id('entity', 'the agent that holds the grant'),
      capability_id: id('capability'),
      resource_id: id('card_credential', 'the card token the grant covers'),
      scope: SCOPE,
    }),
  }),
  defineEventType({
    event_type: 'ns.authority.delegated',
    description:
      'an agent sub-delegates part of its authority (`POST /v1/grants` with `parent_grant_id`): the child scope is a ' +
      'subset of the parent',
    subject_ref: GRANT,
    reason_codes: ['authority_delegated'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    data_schema: closedObject({
      new_state: oneOf(['active']),
      parent_grant_id: id('grant'),
      root_grant_id: id('grant'),
      depth: { type: 'integer', minimum: 1, maximum: 16, description: 'links below the root grant' },
      delegator_entity_id: id('entity', 'the agent that delegated'),
      grantee_entity_id: id('entity', 'the agent that holds the child grant'),
      capability_id: id('capability'),
      resource_id: id('card_credential'),
      scope: { ...SCOPE, description: "the child's own scope, before intersection with its ancestors" },
      delegator_signed: { type: 'boolean', description: 'the delegator signed the statement (delegator_proof)' },
    }),
  }),
  defineEventType({
    event_type: 'ns.authority.revoked',
    description:
      'an authority is revoked (`POST /v1/grants/{id}/revoke`): one event per revoked grant, the grant and every ' +
      'active grant below it, all sharing the operation\u2019s `audit_ref`',
    subject_ref: subject(['grant'], 'the revoked grant (one event per grant of the subtree)'),
    reason_codes: ['principal_revoked_authority', 'admin_revoked_authority'],
    principal_entity_id: 'always',
    actor_entity_id: 'always',
    named_in_spec: true,
    data_schema: closedObject({
      ...stateChange(['active'], ['revoked']),
      affected_capabilities: {
        type: 'array',
        items: id('capability'),
        minItems: 1,
        description: 'the capability ids the revoked grant held',
      },
      revocation_root: id('grant', 'the grant the revoke was called on'),
    }),
  }),
];
