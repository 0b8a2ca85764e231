/**
 * Translates decide's (request, snapshot, now) into a Cedar request and entity store: the work a service using Cedar
 * would do per request, measured separately from evaluation.
 *
 * What Cedar cannot hold is computed here, outside the policies: a delegation chain (Cedar has no iteration over a
 * list of links, so only a root grant is accepted; a chain would need its effective scope computed first), the
 * alias spellings of ids (normalised), the grant's actions (capability intersected with `allowed_actions`), and
 * whether a named approval is approved (the binding comparison of CONTRACT section 3 step 8 stays out of Cedar).
 */
import { actionsCoveredBy, cardTokenId, tryParseCardTokenRef, tryParseEntityId } from '@aar/core';
import type { DecisionRequest, DecisionSnapshot, GrantScope, MinorMoney } from '@aar/core';
import type { CedarValueJson, Context, Entities, EntityJson, EntityUid } from '@cedar-policy/cedar-wasm/nodejs';

export interface CedarRequest {
  principal: EntityUid;
  action: EntityUid;
  resource: EntityUid;
  context: Context;
  entities: Entities;
}

export const CEDAR_ACTION: EntityUid = { type: 'Action', id: 'purchase.execute' };

export function toCedarRequest(request: DecisionRequest, snapshot: DecisionSnapshot, now: string): CedarRequest {
  const { principal, actor, instrument, merchant, grants } = snapshot;
  const grant = grants[0];
  if (request.action !== 'execute') throw new Error(`action \`${request.action}\` is not modelled in cedar`);
  if (!grant || grants.length !== 1) throw new Error('cedar models a root grant only, not a delegation chain');
  if (!principal || !actor || !instrument || !merchant || !request.amount) {
    throw new Error('cedar needs the principal, actor, card token, merchant and amount');
  }
  const nowSeconds = toUnixSeconds(now);
  const principalUid = uid('Person', entityRef(principal.entity_id));
  const actorUid = uid('Agent', entityRef(actor.entity_id));
  const cardUid = uid('CardToken', cardRef(instrument.card_token_id));
  const grantUid = uid('Grant', grant.grant_id);
  const scope = grant.scope;
  const covered = actionsCoveredBy(grant.capability_id);
  const grantAttrs: Record<string, CedarValueJson> = {
    state: grant.state,
    signature_valid: grant.signature_valid,
    actor: ref(uid('Agent', entityRef(grant.actor_entity_id))),
    principal: ref(uid('Person', entityRef(grant.principal_entity_id))),
    card: ref(uid('CardToken', cardRef(grant.resource_id))),
    actions: scope.allowed_actions ? covered.filter((a) => scope.allowed_actions?.includes(a)) : [...covered],
    currencies: limitCurrencies(scope),
    ...optionalLimits(scope),
  };
  if (scope.valid_until !== undefined) grantAttrs.valid_until = toUnixSeconds(scope.valid_until);
  const approval = snapshot.approval;
  const entities: EntityJson[] = [
    { uid: principalUid, attrs: { state: principal.state }, parents: [] },
    { uid: actorUid, attrs: { state: actor.state }, parents: [] },
    {
      uid: cardUid,
      attrs: { state: instrument.state, owner: ref(uid('Person', entityRef(instrument.principal_entity_id))) },
      parents: [],
    },
    { uid: grantUid, attrs: grantAttrs, parents: [] },
  ];
  const payload: Record<string, CedarValueJson> = {
    required: snapshot.payload.required,
    present: snapshot.payload.present,
    signature_valid: snapshot.payload.signature_valid,
    nonce_fresh: snapshot.payload.nonce_fresh,
    window_seconds: snapshot.payload.window_seconds,
  };
  if (snapshot.payload.created !== undefined) payload.created = snapshot.payload.created;
  return {
    principal: uid('Agent', entityRef(request.actor_entity_id)),
    action: CEDAR_ACTION,
    resource: uid('CardToken', cardRef(request.instrument_id ?? '')),
    context: {
      now: nowSeconds,
      payload,
      principal: ref(uid('Person', entityRef(request.principal_entity_id))),
      grant: ref(grantUid),
      amount: request.amount.minor,
      currency: request.amount.currency,
      spent_today: grant.spent_today.minor,
      merchant: { category: merchant.category, jurisdiction: merchant.jurisdiction, state: merchant.state },
      risk: { actor: snapshot.risk.actor, principal: snapshot.risk.principal, instrument: snapshot.risk.instrument },
      approved:
        approval !== null &&
        approval.status === 'approved' &&
        approval.policy_decision_id === request.policy_decision_id &&
        Date.parse(approval.expires_at) > Date.parse(now),
    },
    entities,
  };
}

function uid(type: string, id: string): EntityUid {
  return { type, id };
}

function ref(entity: EntityUid): CedarValueJson {
  return { __entity: entity as { type: string; id: string } };
}

function entityRef(id: string): string {
  return tryParseEntityId(id)?.id ?? id;
}

function cardRef(id: string): string {
  const local = tryParseCardTokenRef(id);
  return local === undefined ? id : cardTokenId(local);
}

function toUnixSeconds(iso: string): number {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) throw new Error(`\`${iso}\` is not a timestamp`);
  return Math.floor(ms / 1000);
}

function limitCurrencies(scope: GrantScope): string[] {
  const limits: (MinorMoney | undefined)[] = [
    scope.max_amount_per_purchase,
    scope.max_daily_amount,
    scope.requires_approval_above,
  ];
  return [...new Set(limits.flatMap((limit) => (limit ? [limit.currency] : [])))];
}

function optionalLimits(scope: GrantScope): Record<string, CedarValueJson> {
  const attrs: Record<string, CedarValueJson> = {};
  if (scope.max_amount_per_purchase) attrs.max_amount_per_purchase = scope.max_amount_per_purchase.minor;
  if (scope.max_daily_amount) attrs.max_daily_amount = scope.max_daily_amount.minor;
  if (scope.requires_approval_above) attrs.requires_approval_above = scope.requires_approval_above.minor;
  if (scope.allowed_merchant_categories) attrs.allowed_categories = [...scope.allowed_merchant_categories];
  if (scope.blocked_merchant_categories) attrs.blocked_categories = [...scope.blocked_merchant_categories];
  if (scope.allowed_jurisdictions) attrs.allowed_jurisdictions = [...scope.allowed_jurisdictions];
  return attrs;
}
