/** The `data` every authorize decision event carries (ns.purchase_authority.allowed|denied, ns.decision.*). */
import { REASON_CODES, type Decision } from '../../decide/reason-codes.ts';
import { RULE_REASON_PATTERN } from '../event-type-definition.ts';
import { id, MONEY, nullable, oneOf, TIMESTAMP, type JsonSchema } from '../schema-parts.ts';

export function decisionData(...decisions: Decision[]): Record<string, JsonSchema> {
  return {
    policy_decision_id: id('decision'),
    decision: oneOf(decisions),
    subject: id('capability', 'the capability the request asked for'),
    merchant_id: nullable({ type: 'string', minLength: 1, description: 'the plain merchant id of the request' }),
    amount: nullable(MONEY),
    grant_id: nullable(id('grant', 'the leaf grant of the chain that decided; null when none was found')),
    decision_map_ref: id('decision_map'),
    shadow: {
      type: 'array',
      description:
        'only when a rule pack is active in shadow mode for the decision: each shadow pack\u2019s would-be outcome, ' +
        'never decisive (CONTRACT section 19)',
      items: {
        type: 'object',
        properties: {
          pack_id: { type: 'string', pattern: '^ns:rule_pack:[a-z][a-z0-9_-]{1,62}$' },
          version: { type: 'string', minLength: 1 },
          effect: oneOf(['deny', 'require_approval', 'obligate', 'none']),
          reason: { type: 'string', pattern: RULE_REASON_PATTERN },
        },
        required: ['pack_id', 'version', 'effect'],
        additionalProperties: false,
      },
    },
  };
}

/** the members of decisionData a decision event may lack */
export const OPTIONAL_DECISION_DATA = ['shadow'];

/** What `require_approval` adds: the approval the principal decides on. */
export const APPROVAL_DATA: Record<string, JsonSchema> = {
  approval_id: id('approval'),
  expires_at: { ...TIMESTAMP, description: 'when the approval lapses if the principal does not decide' },
};

/** The reason codes of the decisions named (CONTRACT section 3). */
export function reasonsOf(...decisions: Decision[]): string[] {
  return Object.entries(REASON_CODES)
    .filter(([, info]) => decisions.includes(info.decision))
    .map(([code]) => code);
}
