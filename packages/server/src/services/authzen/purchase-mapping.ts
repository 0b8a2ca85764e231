/**
 * The purchase mapping of CONTRACT section 20: an AuthZEN evaluation whose action is a capability id
 * (`ns:capability:…`) or `purchase.<action>` becomes the authorize body of section 3, field by field; everything else
 * goes to the generic domain (generic-evaluation.ts). Malformed input is a 400 naming the AuthZEN field (the pointer
 * of the authorize body is translated back), never a decision.
 */
import { AarError, fieldError, isAarError, isPurchaseAction } from '@aar/core';
import type { AuthorizeBody } from '../authorize/normalize-request.ts';
import type { AuthzenEvaluation } from './authzen-model.ts';

const CAPABILITY_PREFIX = 'ns:capability:';
const PURCHASE_PREFIX = 'purchase.';

/** Whether the action belongs to the purchase domain (and so to the one authorize path). */
export function isPurchaseActionName(name: string): boolean {
  return name.startsWith(CAPABILITY_PREFIX) || name.startsWith(PURCHASE_PREFIX);
}

/** authorize-body pointer → AuthZEN pointer (relative to the evaluation) */
const POINTERS: Readonly<Record<string, string>> = {
  '/actor_entity_id': '/subject/id',
  '/principal_entity_id': '/context/principal_entity_id',
  '/subject': '/action/name',
  '/resource/merchant_id': '/resource/properties/merchant_id',
  '/resource/amount': '/resource/properties/amount',
  '/resource/currency': '/resource/properties/currency',
  '/scope/instrument': '/resource/properties/instrument',
  '/basket': '/resource/properties/basket',
  '/policy_decision_id': '/context/policy_decision_id',
};

/** The authorize body of a purchase evaluation; `at` is the evaluation's pointer in the request (`` or `/evaluations/3`). */
export function authorizeBodyOf(ev: AuthzenEvaluation, at: string): AuthorizeBody {
  if (ev.subject.type !== 'agent')
    throw fieldError('invalid_request', `${at}/subject/type`, 'must be `agent` for a purchase');
  if (ev.resource.type !== 'purchase') {
    throw fieldError('invalid_request', `${at}/resource/type`, 'must be `purchase` for a purchase action');
  }
  const name = ev.action.name;
  let subject = name;
  if (name.startsWith(PURCHASE_PREFIX)) {
    const action = name.slice(PURCHASE_PREFIX.length);
    if (!isPurchaseAction(action))
      throw fieldError('invalid_request', `${at}/action/name`, `\`${name}\` is not a purchase action`);
    subject = `ns:capability:purchase:${action}`;
  }
  const props = ev.resource.properties ?? {};
  const context = ev.context ?? {};
  const principal = context.principal_entity_id;
  if (typeof principal !== 'string') {
    throw fieldError('invalid_request', `${at}/context/principal_entity_id`, 'is required (a string) for a purchase');
  }
  const body: AuthorizeBody = {
    actor_entity_id: ev.subject.id.startsWith('ns:') ? ev.subject.id : `ns:entity:agent:${ev.subject.id}`,
    principal_entity_id: principal,
    subject,
  };
  const resource: NonNullable<AuthorizeBody['resource']> = {};
  if (props.merchant_id !== undefined)
    resource.merchant_id = stringAt(props.merchant_id, `${at}/resource/properties/merchant_id`);
  if (props.amount !== undefined) {
    if (typeof props.amount !== 'number')
      throw fieldError('invalid_amount', `${at}/resource/properties/amount`, 'must be a number');
    resource.amount = props.amount;
  }
  if (props.currency !== undefined) resource.currency = stringAt(props.currency, `${at}/resource/properties/currency`);
  if (Object.keys(resource).length > 0) body.resource = resource;
  if (props.instrument !== undefined)
    body.scope = { instrument: stringAt(props.instrument, `${at}/resource/properties/instrument`) };
  if (props.basket !== undefined) {
    const basket = props.basket as { items?: unknown };
    if (typeof basket !== 'object' || basket === null || Array.isArray(basket) || !Array.isArray(basket.items)) {
      throw fieldError(
        'invalid_request',
        `${at}/resource/properties/basket`,
        'must be an object with an `items` array',
      );
    }
    body.basket = basket as Record<string, unknown>;
  }
  if (context.policy_decision_id !== undefined) {
    body.policy_decision_id = stringAt(context.policy_decision_id, `${at}/context/policy_decision_id`);
  }
  const { principal_entity_id: _p, policy_decision_id: _d, agent_request: _a, ...rest } = context;
  if (Object.keys(rest).length > 0) body.context = rest;
  return body;
}

function stringAt(value: unknown, pointer: string): string {
  if (typeof value !== 'string') throw fieldError('invalid_request', pointer, 'must be a string');
  return value;
}

/** Runs `fn` (which validates an authorize body) and translates its field pointers to the AuthZEN request's. */
export async function inAuthzenTerms<T>(at: string, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw translated(error, at);
  }
}

export function translated(error: unknown, at: string): unknown {
  if (!isAarError(error) || !error.errors || error.errors.length === 0) return error;
  const errors = error.errors.map((e) => ({ path: `${at}${POINTERS[e.path] ?? e.path}`, message: e.message }));
  const first = errors[0]!;
  return new AarError(error.code, `${first.path}: ${first.message}`, {
    errors,
    ...(error.extra ? { extra: error.extra } : {}),
  });
}
