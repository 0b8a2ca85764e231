/**
 * `authorize_purchase`: asks the service whether the agent may take one purchase action (CONTRACT section 3: execute,
 * or a sub-capability), signed as the agent. The principal and the card token are this server's, fixed at start: the
 * model names the merchant, the amount and the action, never whose money or which card. The answer is the recorded
 * decision, deny and require_approval included (they are answers, not errors).
 */
import type { AgentSession, AuthorizeBody } from '../agent-session.ts';
import type { RequestMemory } from '../request-memory.ts';
import type { ToolDefinition } from '../tool-kit.ts';
import { decisionSchema, decisionText, summarizeDecision } from './decision-shape.ts';

export const PURCHASE_ACTIONS = [
  'execute',
  'search',
  'compare',
  'prepare',
  'request_approval',
  'refund_request',
  'dispute_prepare',
] as const;

type PurchaseAction = (typeof PURCHASE_ACTIONS)[number];

interface AuthorizeArgs {
  action?: PurchaseAction;
  merchant_id?: string;
  amount?: number;
  currency?: string;
  basket?: { items: unknown[] };
  context?: Record<string, unknown>;
}

/** execute is the purchase capability itself; the other six are `ns:capability:purchase:<action>`. */
export function subjectOf(action: PurchaseAction): string {
  return action === 'execute' ? 'ns:capability:payment_action:card_purchase' : `ns:capability:purchase:${action}`;
}

export function authorizePurchaseTool(session: AgentSession, memory: RequestMemory): ToolDefinition {
  return {
    name: 'authorize_purchase',
    title: 'Authorize a purchase action',
    description:
      'Ask whether this agent may take a purchase action for the person it acts for, with their card token. ' +
      'Call it before every purchase step; `execute` (the default) is the payment itself and needs merchant_id, ' +
      'amount and currency, as does `refund_request`. The answer is allow_with_constraints, require_approval ' +
      '(then call await_approval) or deny, recorded and signed by the service.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        action: { type: 'string', enum: [...PURCHASE_ACTIONS], default: 'execute' },
        merchant_id: {
          type: 'string',
          pattern: '^[A-Za-z0-9._-]{1,128}$',
          description: 'the merchant id registered with the service',
        },
        amount: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: 1e12,
          description: 'major units (12.50), no more decimals than the currency has',
        },
        currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217, e.g. EUR' },
        basket: {
          type: 'object',
          required: ['items'],
          properties: { items: { type: 'array', maxItems: 200, items: { type: 'object' } } },
          description: 'the items; bound to the decision by their hash',
        },
        context: { type: 'object', description: 'free-form, recorded with the decision, never decisive' },
      },
      allOf: [
        {
          type: 'object',
          if: { type: 'object', properties: { action: { enum: ['execute', 'refund_request'] } } },
          then: { required: ['merchant_id', 'amount', 'currency'] },
        },
        { type: 'object', dependentRequired: { amount: ['currency'], currency: ['amount'] } },
      ],
    },
    outputSchema: decisionSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(raw) {
      const args = raw as AuthorizeArgs;
      const action = args.action ?? 'execute';
      const body = purchaseBody(session, action, args);
      const summary = summarizeDecision(await session.authorize(body));
      if (summary.decision === 'require_approval') memory.remember(summary.policy_decision_id, body);
      return { structured: summary, text: decisionText(summary) };
    },
  };
}

export function purchaseBody(session: AgentSession, action: PurchaseAction, args: AuthorizeArgs): AuthorizeBody {
  const { agent, principal, instrument } = session.identity;
  const resource: Record<string, unknown> = {};
  if (args.merchant_id !== undefined) resource.merchant_id = args.merchant_id;
  if (args.amount !== undefined) resource.amount = args.amount;
  if (args.currency !== undefined) resource.currency = args.currency;
  return {
    actor_entity_id: agent,
    principal_entity_id: principal,
    subject: subjectOf(action),
    ...(Object.keys(resource).length > 0 ? { resource } : {}),
    scope: { instrument },
    ...(args.basket ? { basket: args.basket } : {}),
    ...(args.context ? { context: args.context } : {}),
  } as AuthorizeBody;
}
