/**
 * The authorize body (SPEC "Authorize request", CONTRACT section 3) turned into decide's DecisionRequest: canonical
 * ids, money in integer minor units, the action derived from the subject. Malformed input is a 400 naming the field;
 * a well-formed request for something not granted is a decision, not an error.
 */
import {
  actionFromSubject,
  CAPABILITY_PATTERN,
  cardTokenId,
  fieldError,
  isLocalId,
  MONEY_MOVING_ACTIONS,
  parseAmount,
  parseCardTokenRef,
  parseEntityId,
  parseMintedId,
  type DecisionRequest,
} from '@aar/core';

export interface AuthorizeBody {
  actor_entity_id: string;
  principal_entity_id: string;
  subject: string;
  resource?: { merchant_id?: string; amount?: number; currency?: string };
  scope?: { instrument?: string };
  basket?: Record<string, unknown>;
  policy_decision_id?: string;
  context?: Record<string, unknown>;
}

export function normalizeAuthorizeRequest(body: AuthorizeBody): DecisionRequest {
  const actor = parseEntityId(body.actor_entity_id, '/actor_entity_id');
  const principal = parseEntityId(body.principal_entity_id, '/principal_entity_id', ['person', 'organisation']);
  if (!CAPABILITY_PATTERN.test(body.subject)) {
    throw fieldError('invalid_id', '/subject', 'must be a capability id `ns:capability:<family>:<action>`');
  }
  const action = actionFromSubject(body.subject);
  if (action === undefined) {
    throw fieldError(
      'invalid_request',
      '/subject',
      `\`${body.subject}\` is not a purchase capability this service decides`,
    );
  }
  const request: DecisionRequest = {
    actor_entity_id: actor.id,
    principal_entity_id: principal.id,
    subject: body.subject,
    action,
  };
  const resource = body.resource ?? {};
  const moneyMoving = MONEY_MOVING_ACTIONS.includes(action);
  if (resource.merchant_id !== undefined) {
    if (!isLocalId(resource.merchant_id))
      throw fieldError('invalid_id', '/resource/merchant_id', 'must match `[A-Za-z0-9._-]{1,128}`');
    request.merchant_id = resource.merchant_id;
  } else if (moneyMoving) {
    throw fieldError('invalid_request', '/resource/merchant_id', `is required for \`${action}\``);
  }
  if (resource.amount !== undefined || resource.currency !== undefined || moneyMoving) {
    if (resource.amount === undefined)
      throw fieldError(
        'invalid_request',
        '/resource/amount',
        'is required with a currency, and for money-moving actions',
      );
    if (resource.currency === undefined)
      throw fieldError('invalid_request', '/resource/currency', 'is required with an amount');
    request.amount = parseAmount(resource.amount, resource.currency, '/resource/amount', '/resource/currency');
  }
  const instrument = body.scope?.instrument;
  if (instrument !== undefined) request.instrument_id = cardTokenId(parseCardTokenRef(instrument, '/scope/instrument'));
  else if (moneyMoving) throw fieldError('invalid_request', '/scope/instrument', `is required for \`${action}\``);
  if (body.basket !== undefined) request.basket = body.basket;
  if (body.policy_decision_id !== undefined) {
    request.policy_decision_id = parseMintedId('decision', body.policy_decision_id, '/policy_decision_id');
  }
  if (body.context !== undefined) request.context = body.context;
  return request;
}
