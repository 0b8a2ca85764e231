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
  UUID_PATTERN,
  type DecisionRequest,
} from '@aar/core';

/** The mandate a purchase is made under (CONTRACT section 21): named by its id, or presented (AP2, closed). */
export type MandateRef = { mandate_id: string } | { presentation: string };

/**
 * decide's request plus the mandate it names: recorded with the decision (decide does not read it), so the evidence
 * pack shows which mandate the purchase named and the closed presentation it presented.
 */
export type AuthorizeRequest = DecisionRequest & { mandate?: MandateRef };

/** An AP2 presentation is at most this long (the verifier's default limit, 64 KiB). */
export const MAX_PRESENTATION_BYTES = 64 * 1024;
const MANDATE_ID = new RegExp(`^ns:(mandate|allowance):(.*)$`);

export interface AuthorizeBody {
  actor_entity_id: string;
  principal_entity_id: string;
  subject: string;
  resource?: { merchant_id?: string; amount?: number; currency?: string };
  scope?: { instrument?: string };
  basket?: Record<string, unknown>;
  policy_decision_id?: string;
  context?: Record<string, unknown>;
  mandate?: { mandate_id?: string; presentation?: string };
  /** aar-decide/1.5.0 (preview): the route's schema holds each member to a 1-256 character string */
  agent_metadata?: { model: string; software_version: string; operator: string };
}

export function normalizeAuthorizeRequest(body: AuthorizeBody): AuthorizeRequest {
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
  const request: AuthorizeRequest = {
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
  if (body.mandate !== undefined) request.mandate = parseMandateRef(body.mandate);
  if (body.agent_metadata !== undefined) {
    const { model, software_version, operator } = body.agent_metadata;
    request.agent_metadata = { model, software_version, operator };
  }
  return request;
}

/** `{ mandate_id }` (`ns:mandate:<uuid>` or `ns:allowance:<uuid>`) or `{ presentation }`, exactly one of them. */
function parseMandateRef(raw: { mandate_id?: string; presentation?: string }): MandateRef {
  const { mandate_id: id, presentation } = raw;
  if ((id === undefined) === (presentation === undefined)) {
    throw fieldError('invalid_request', '/mandate', 'must hold exactly one of `mandate_id` and `presentation`');
  }
  if (id !== undefined) {
    const m = MANDATE_ID.exec(id);
    if (!m || !UUID_PATTERN.test(m[2]!)) {
      throw fieldError(
        'invalid_id',
        '/mandate/mandate_id',
        'must be an id of the form `ns:mandate:<uuid>` or `ns:allowance:<uuid>`',
      );
    }
    return { mandate_id: id };
  }
  if (presentation!.length === 0 || Buffer.byteLength(presentation!, 'utf8') > MAX_PRESENTATION_BYTES) {
    throw fieldError('invalid_request', '/mandate/presentation', `must be 1 to ${MAX_PRESENTATION_BYTES} bytes`);
  }
  return { presentation: presentation! };
}
