/**
 * Step 2: principal, actor and card token exist, are the ones the request names, and are active; the card token
 * belongs to the principal. The instrument is required for money-moving actions (and for an unknown action: fail
 * closed), optional otherwise (CONTRACT section 3). aar-decide/1.5.0: right after the actor, the agent metadata the request
 * presents against the attested one (agent-metadata.ts).
 */
import { MONEY_MOVING_ACTIONS } from '../action-from-subject.ts';
import { isRecord } from '../guards.ts';
import { sameEntity, sameInstrument } from '../same-ref.ts';
import { checkAgentMetadata } from './agent-metadata.ts';
import { fail, pass, quote, type CheckContext, type CheckVerdict } from './check-context.ts';

export function checkEntities(ctx: CheckContext): CheckVerdict {
  const { request, snapshot } = ctx;
  const principal: unknown = snapshot.principal;
  if (!isRecord(principal)) return fail('principal_inactive', 'principal not found');
  if (!sameEntity(principal.entity_id, request.principal_entity_id)) {
    return fail('principal_inactive', 'snapshot principal is not the request principal');
  }
  if (principal.type !== 'person' && principal.type !== 'organisation') {
    return fail('principal_inactive', `principal type ${quote(principal.type)} cannot be a principal`);
  }
  if (principal.state !== 'active') return fail('principal_inactive', `principal is ${quote(principal.state)}`);

  const actor: unknown = snapshot.actor;
  if (!isRecord(actor)) return fail('actor_inactive', 'actor not found');
  if (!sameEntity(actor.entity_id, request.actor_entity_id)) {
    return fail('actor_inactive', 'snapshot actor is not the request actor');
  }
  if (actor.type !== 'agent') return fail('actor_inactive', `actor type ${quote(actor.type)} is not an agent`);
  if (actor.state !== 'active') return fail('actor_inactive', `actor is ${quote(actor.state)}`);
  const metadata = checkAgentMetadata(request, snapshot);
  if (metadata) return metadata;

  const requiresInstrument = ctx.action === undefined || MONEY_MOVING_ACTIONS.includes(ctx.action);
  if (request.instrument_id === undefined) {
    if (requiresInstrument) return fail('instrument_inactive', `instrument required for ${quote(request.action)}`);
    return pass('principal and actor active; no instrument named');
  }
  const instrument: unknown = snapshot.instrument;
  if (!isRecord(instrument)) return fail('instrument_inactive', 'card token not found');
  if (!sameInstrument(instrument.card_token_id, request.instrument_id)) {
    return fail('instrument_inactive', 'snapshot card token is not the request instrument');
  }
  if (instrument.state !== 'active') return fail('instrument_inactive', `card token is ${quote(instrument.state)}`);
  if (!sameEntity(instrument.principal_entity_id, request.principal_entity_id)) {
    return fail('instrument_not_bound', 'card token belongs to another principal');
  }
  return pass('principal, actor and card token active');
}
