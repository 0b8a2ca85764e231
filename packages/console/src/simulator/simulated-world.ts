/**
 * The simulator's world: the spec's seven inputs (agent state, customer authority, merchant, basket amount, approval
 * threshold, card/token state, risk state) turned into the request and snapshot core's `decide` reads, then decided
 * and mapped with the very code the server runs. Pure: `now` is an argument.
 * Illustrative only: the production decision reads its facts from the store, verifies the agent's signature and
 * delegation links, and counts the day's spending; here those facts are fixed and shown as such.
 */
import {
  buildDecisionMap,
  CARD_PURCHASE_CAPABILITY,
  decide,
  parseAmount,
  type DecisionRequest,
  type DecisionResult,
  type DecisionSnapshot,
  type EntityState,
  type GrantSnapshot,
  type MinorMoney,
  type RiskState,
  type UnsignedDecisionMap,
} from '@aar/core';

export type AuthorityState = 'active' | 'revoked' | 'expired' | 'none';
export type CardTokenState = 'active' | 'suspended' | 'other_customer';

export interface SimulatorInputs {
  agentState: EntityState;
  authority: AuthorityState;
  merchantId: string;
  /** major units as typed, e.g. `"42.50"` */
  basketAmount: string;
  /** major units as typed */
  approvalThreshold: string;
  cardToken: CardTokenState;
  risk: RiskState;
}

export interface SampleMerchant {
  id: string;
  label: string;
  /** ISO 18245 merchant category code */
  category: string;
  jurisdiction: string;
}

export const CURRENCY = 'EUR';
const PRINCIPAL = 'ns:entity:person:alice';
const AGENT = 'ns:entity:agent:shopping-assistant';
const CARD_TOKEN = 'ns:card_token:tok-simulated';
const GRANT_ID = 'ns:authority:grant:00000000-0000-4000-8000-000000000001';

export const SAMPLE_MERCHANTS: readonly SampleMerchant[] = [
  { id: 'grocer-berlin', label: 'Grocery store, Berlin', category: '5411', jurisdiction: 'DE' },
  { id: 'bistro-paris', label: 'Restaurant, Paris', category: '5812', jurisdiction: 'FR' },
  { id: 'bookshop-amsterdam', label: 'Book shop, Amsterdam', category: '5942', jurisdiction: 'NL' },
  { id: 'casino-online', label: 'Online casino, Malta', category: '7995', jurisdiction: 'MT' },
  { id: 'electronics-ny', label: 'Electronics store, New York', category: '5732', jurisdiction: 'US' },
];

/** The fixed part of the customer's grant to the agent: what the seven inputs do not change. */
export const FIXED_SCOPE = {
  max_amount_per_purchase: { minor: 50_000, currency: CURRENCY },
  max_daily_amount: { minor: 100_000, currency: CURRENCY },
  blocked_merchant_categories: ['7995'],
  allowed_jurisdictions: ['DE', 'FR', 'NL', 'MT'],
} as const;

export const DEFAULT_INPUTS: SimulatorInputs = {
  agentState: 'active',
  authority: 'active',
  merchantId: 'grocer-berlin',
  basketAmount: '42.50',
  approvalThreshold: '100.00',
  cardToken: 'active',
  risk: 'normal',
};

export interface Simulation {
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  result: DecisionResult;
  map: UnsignedDecisionMap;
}

export type SimulationOutcome =
  { ok: true; simulation: Simulation } | { ok: false; field: 'basketAmount' | 'approvalThreshold'; message: string };

/** Reads an amount field as exact minor units, or says what is wrong with it (in words a person reads). */
export function readAmount(text: string): MinorMoney | string {
  const trimmed = text.trim();
  if (!/^\d{1,9}(\.\d{1,2})?$/.test(trimmed)) return 'enter an amount in euros, like 42.50';
  try {
    return parseAmount(Number(trimmed), CURRENCY, '/amount', '/currency');
  } catch {
    return 'enter an amount greater than zero';
  }
}

export function simulate(inputs: SimulatorInputs, now: Date): SimulationOutcome {
  const amount = readAmount(inputs.basketAmount);
  if (typeof amount === 'string') return { ok: false, field: 'basketAmount', message: amount };
  const threshold = readAmount(inputs.approvalThreshold);
  if (typeof threshold === 'string') return { ok: false, field: 'approvalThreshold', message: threshold };
  const merchant = SAMPLE_MERCHANTS.find((m) => m.id === inputs.merchantId) ?? SAMPLE_MERCHANTS[0]!;

  const request: DecisionRequest = {
    actor_entity_id: AGENT,
    principal_entity_id: PRINCIPAL,
    subject: CARD_PURCHASE_CAPABILITY,
    action: 'execute',
    merchant_id: merchant.id,
    amount,
    instrument_id: CARD_TOKEN,
  };
  const snapshot: DecisionSnapshot = {
    // the agent's request signature is the server's to verify; the simulator has none to check
    payload: { required: false, present: false, signature_valid: false, nonce_fresh: false, window_seconds: 300 },
    principal: { entity_id: PRINCIPAL, type: 'person', state: 'active' },
    actor: { entity_id: AGENT, type: 'agent', state: inputs.agentState },
    instrument: {
      card_token_id: CARD_TOKEN,
      principal_entity_id: inputs.cardToken === 'other_customer' ? 'ns:entity:person:someone-else' : PRINCIPAL,
      state: inputs.cardToken === 'suspended' ? 'suspended' : 'active',
    },
    grants: inputs.authority === 'none' ? [] : [grantFor(inputs.authority, threshold, now)],
    grant_lookup: inputs.authority === 'none' ? 'authority_not_found' : 'found',
    merchant: {
      merchant_id: merchant.id,
      category: merchant.category,
      jurisdiction: merchant.jurisdiction,
      state: 'active',
    },
    risk: { actor: inputs.risk, principal: 'normal', instrument: 'normal' },
    approval: null,
    policy: { policy_id: 'ns:policy:simulator', version: 'illustrative' },
  };
  const nowText = now.toISOString();
  const result = decide(request, snapshot, nowText);
  const map = buildDecisionMap({
    decision_map_id: 'ns:decision_map:simulated',
    policy_decision_id: 'ns:decision:simulated',
    request,
    snapshot,
    result,
    audit_ref: 'ns:audit:not-recorded',
    evidence_refs: [],
    issued_at: nowText,
  });
  return { ok: true, simulation: { request, snapshot, result, map } };
}

function grantFor(authority: Exclude<AuthorityState, 'none'>, threshold: MinorMoney, now: Date): GrantSnapshot {
  const day = 24 * 3600 * 1000;
  const validUntil = new Date(now.getTime() + (authority === 'expired' ? -day : 180 * day)).toISOString();
  return {
    grant_id: GRANT_ID,
    parent_grant_id: null,
    principal_entity_id: PRINCIPAL,
    actor_entity_id: AGENT,
    capability_id: CARD_PURCHASE_CAPABILITY,
    resource_id: 'ns:credential:card-token:tok-simulated',
    state: authority === 'revoked' ? 'revoked' : 'active',
    scope: {
      max_amount_per_purchase: { ...FIXED_SCOPE.max_amount_per_purchase },
      max_daily_amount: { ...FIXED_SCOPE.max_daily_amount },
      requires_approval_above: threshold,
      blocked_merchant_categories: [...FIXED_SCOPE.blocked_merchant_categories],
      allowed_jurisdictions: [...FIXED_SCOPE.allowed_jurisdictions],
      valid_until: validUntil,
    },
    spent_today: { minor: 0, currency: CURRENCY },
    depth: 0,
    signature_valid: true,
  };
}
