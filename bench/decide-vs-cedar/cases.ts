/**
 * The three inputs of the benchmark, built on the allowed vector `vectors/decisions/allow-execute-eur-root-grant.json`
 * with a scope that uses every limit Cedar is asked to express: per-purchase, daily and approval limits, allowed and
 * blocked categories, allowed jurisdictions, allowed actions and an expiry. Signed payload, risk normal.
 */
import type { Decision, DecisionRequest, DecisionSnapshot, GrantSnapshot, ReasonCode } from '@aar/core';

export interface DecisionCase {
  /** the group name in the results table */
  name: string;
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  now: string;
  /** what CONTRACT section 3 says decide must answer; the benchmark refuses to time a case that drifted */
  want: { decision: Decision; reason: ReasonCode };
}

const NOW = '2026-04-15T10:00:00Z';
const PRINCIPAL = 'ns:entity:person:alice';
const ACTOR = 'ns:entity:agent:shopper-1';
const CARD_TOKEN = 'ns:card_token:tok-1';
const CAPABILITY = 'ns:capability:payment_action:card_purchase';

function rootGrant(): GrantSnapshot {
  return {
    grant_id: 'ns:authority:grant:01963a4e-8c00-7b3a-9f10-2a4b6c8d0e01',
    parent_grant_id: null,
    principal_entity_id: PRINCIPAL,
    actor_entity_id: ACTOR,
    capability_id: CAPABILITY,
    resource_id: 'ns:credential:card-token:tok-1',
    state: 'active',
    scope: {
      max_amount_per_purchase: { minor: 15000, currency: 'EUR' },
      max_daily_amount: { minor: 50000, currency: 'EUR' },
      requires_approval_above: { minor: 10000, currency: 'EUR' },
      allowed_merchant_categories: ['5411', '5412', '5499', '5812', '5814'],
      blocked_merchant_categories: ['7995'],
      allowed_jurisdictions: ['DE', 'FR', 'NL'],
      allowed_actions: ['search', 'compare', 'prepare', 'execute'],
      valid_until: '2026-12-31T23:59:59Z',
    },
    spent_today: { minor: 12000, currency: 'EUR' },
    depth: 0,
    signature_valid: true,
  };
}

function purchase(amountMinor: number, merchantCategory: string): Pick<DecisionCase, 'request' | 'snapshot' | 'now'> {
  return {
    now: NOW,
    request: {
      actor_entity_id: ACTOR,
      principal_entity_id: PRINCIPAL,
      subject: CAPABILITY,
      action: 'execute',
      merchant_id: 'grocer-berlin',
      amount: { minor: amountMinor, currency: 'EUR' },
      instrument_id: CARD_TOKEN,
    },
    snapshot: {
      payload: {
        required: true,
        present: true,
        signature_valid: true,
        created: 1776247198,
        nonce_fresh: true,
        window_seconds: 300,
      },
      principal: { entity_id: PRINCIPAL, type: 'person', state: 'active' },
      actor: { entity_id: ACTOR, type: 'agent', state: 'active' },
      instrument: { card_token_id: CARD_TOKEN, principal_entity_id: PRINCIPAL, state: 'active' },
      grants: [rootGrant()],
      grant_lookup: 'found',
      merchant: { merchant_id: 'grocer-berlin', category: merchantCategory, jurisdiction: 'DE', state: 'active' },
      risk: { actor: 'normal', principal: 'normal', instrument: 'normal' },
      approval: null,
      policy: { policy_id: 'ns:policy:card-purchase-default', version: '1' },
    },
  };
}

/**
 * 7995 (gambling) is blocked and, being absent from the allowed list, not allowed either: decide names the first
 * failing rule of CONTRACT section 3 (blocked), Cedar returns both forbids that hold.
 */
export const DECISION_CASES: readonly DecisionCase[] = [
  {
    name: 'allow',
    ...purchase(4250, '5411'),
    want: { decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' },
  },
  {
    name: 'deny: category blocked',
    ...purchase(4250, '7995'),
    want: { decision: 'deny', reason: 'merchant_category_blocked' },
  },
  {
    name: 'require_approval',
    ...purchase(12000, '5411'),
    want: { decision: 'require_approval', reason: 'amount_above_approval_threshold' },
  },
];
