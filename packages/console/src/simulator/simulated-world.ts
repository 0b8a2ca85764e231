/**
 * The simulator's world: the spec's seven inputs (agent state, customer authority, merchant, basket amount, approval
 * threshold, card/token state, risk state) turned into the request and snapshot core's `decide` reads, then decided
 * and mapped with the very code the server runs. Pure: `now` is an argument.
 * Illustrative only: the production decision reads its facts from the store, verifies the agent's signature and
 * delegation links, and counts the day's spending; here those facts are fixed and shown as such.
 * With shipped rule packs switched on (shipped-packs.ts), the snapshot carries their `policy_set` and the facts rules
 * read (`facts.counters`, `facts.local_time`), which the simulator takes as inputs instead of counting them.
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
  type DecisionFacts,
  type DictionaryDocument,
  type MinorMoney,
  type RiskState,
  type RulePackDocument,
  type UnsignedDecisionMap,
} from '@aar/core';
import { policySetOf, SHIPPED_PACKS, type PackMode } from './shipped-packs.ts';

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
  /** by pack name; absent = off */
  packs: Record<string, PackMode>;
  /** what rules read, as typed (counts, amounts in euros, the local hour) */
  facts: SimulatorFacts;
}

export interface SimulatorFacts {
  purchases1h: string;
  purchases24h: string;
  agentPurchases24h: string;
  /** major units as typed */
  spend24h: string;
  spend30d: string;
  merchantFirstPurchase: boolean;
  /** 0-23 in the customer's time zone */
  localHour: string;
  /** ISO weekday 1 (Monday) - 7 */
  weekday: string;
  /** a basket item category rules read (`request.basket.items[].category`), or '' for no basket */
  basketCategory: string;
}

export type SimulatorField =
  | 'basketAmount'
  | 'approvalThreshold'
  | 'purchases1h'
  | 'purchases24h'
  | 'agentPurchases24h'
  | 'spend24h'
  | 'spend30d'
  | 'localHour';

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
  packs: {},
  facts: {
    purchases1h: '0',
    purchases24h: '0',
    agentPurchases24h: '0',
    spend24h: '0',
    spend30d: '0',
    merchantFirstPurchase: false,
    localHour: '14',
    weekday: '3',
    basketCategory: '',
  },
};

/** The customer's time zone in the simulated world: local time facts are in it. */
export const LOCAL_ZONE = 'Europe/Berlin';

export interface Simulation {
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  result: DecisionResult;
  map: UnsignedDecisionMap;
}

export type SimulationOutcome =
  { ok: true; simulation: Simulation } | { ok: false; field: SimulatorField; message: string };

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

/** A whole count typed in a field, within `max`, or what is wrong with it. */
export function readCount(text: string, max: number): number | string {
  const trimmed = text.trim();
  if (!/^\d{1,7}$/.test(trimmed) || Number(trimmed) > max) return `enter a whole number from 0 to ${max}`;
  return Number(trimmed);
}

/** An amount of spending already done (zero allowed), as minor units. */
function readSpend(text: string): number | string {
  if (text.trim() === '0') return 0;
  const money = readAmount(text);
  return typeof money === 'string' ? 'enter an amount in euros, like 42.50, or 0' : money.minor;
}

type FactsOutcome = { ok: true; facts: DecisionFacts } | { ok: false; field: SimulatorField; message: string };

/** The facts rules read: counters and local time, from the inputs (the server counts them from its store). */
export function readFacts(input: SimulatorFacts, now: Date): FactsOutcome {
  const counts: [SimulatorField, string, number][] = [
    ['purchases1h', input.purchases1h, 10_000],
    ['purchases24h', input.purchases24h, 10_000],
    ['agentPurchases24h', input.agentPurchases24h, 10_000],
    ['localHour', input.localHour, 23],
  ];
  const read: Partial<Record<SimulatorField, number>> = {};
  for (const [field, text, max] of counts) {
    const n = readCount(text, max);
    if (typeof n === 'string') return { ok: false, field, message: n };
    read[field] = n;
  }
  const spend24h = readSpend(input.spend24h);
  if (typeof spend24h === 'string') return { ok: false, field: 'spend24h', message: spend24h };
  const spend30d = readSpend(input.spend30d);
  if (typeof spend30d === 'string') return { ok: false, field: 'spend30d', message: spend30d };
  const weekday = Math.min(7, Math.max(1, Number(input.weekday) || 1));
  return {
    ok: true,
    facts: {
      counters: {
        purchases_1h: read.purchases1h!,
        purchases_24h: read.purchases24h!,
        spend_24h_minor: spend24h,
        spend_30d_minor: spend30d,
        merchant_first_purchase: input.merchantFirstPurchase,
        agent_purchases_1h: Math.min(read.purchases1h!, read.agentPurchases24h!),
        agent_purchases_24h: read.agentPurchases24h!,
      },
      local_time: { zone: LOCAL_ZONE, hour: read.localHour!, minute: 0, weekday, date: now.toISOString().slice(0, 10) },
    },
  };
}

export function simulate(
  inputs: SimulatorInputs,
  now: Date,
  packs: readonly RulePackDocument[] = SHIPPED_PACKS,
  dictionaries?: Readonly<Record<string, DictionaryDocument>>,
): SimulationOutcome {
  const amount = readAmount(inputs.basketAmount);
  if (typeof amount === 'string') return { ok: false, field: 'basketAmount', message: amount };
  const threshold = readAmount(inputs.approvalThreshold);
  if (typeof threshold === 'string') return { ok: false, field: 'approvalThreshold', message: threshold };
  const merchant = SAMPLE_MERCHANTS.find((m) => m.id === inputs.merchantId) ?? SAMPLE_MERCHANTS[0]!;
  const policySet = policySetOf(inputs.packs, packs, dictionaries);
  let facts: DecisionFacts | undefined;
  if (policySet) {
    const read = readFacts(inputs.facts, now);
    if (!read.ok) return read;
    facts = read.facts;
  }

  const request: DecisionRequest = {
    actor_entity_id: AGENT,
    principal_entity_id: PRINCIPAL,
    subject: CARD_PURCHASE_CAPABILITY,
    action: 'execute',
    merchant_id: merchant.id,
    amount,
    instrument_id: CARD_TOKEN,
    ...(inputs.facts.basketCategory ? { basket: basketOf(inputs.facts.basketCategory, amount) } : {}),
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
    ...(facts ? { facts } : {}),
    ...(policySet ? { policy_set: policySet } : {}),
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

/** One line of the given category for the whole amount: what basket rules read (`request.basket.items`). */
function basketOf(category: string, amount: MinorMoney): Record<string, unknown> {
  return {
    items: [
      {
        sku: `sample-${category}`,
        name: `Sample ${category.replaceAll('_', ' ')} item`,
        qty: 1,
        unit_price: { minor: amount.minor, currency: amount.currency },
        category,
      },
    ],
  };
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
