import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import {
  CHECK_ORDER,
  decide,
  REASON_CODES,
  type ReasonCode,
  type DecisionResult,
  type DecisionSnapshot,
  type GrantSnapshot,
} from '../../src/decide/index.ts';
import { bhdChainCase, eurRootCase, grantAt, NOW_SECONDS, type DecisionInput } from './fixtures.ts';

function run(input: DecisionInput): DecisionResult {
  return decide(input.request, input.snapshot, input.now);
}

function failedCheck(result: DecisionResult) {
  return result.diagnostics.checks.find((c) => c.outcome === 'fail');
}

describe('decide: diagnostics and result shape', () => {
  it('lists every check in order and names the failing grant and field', () => {
    const input = bhdChainCase();
    grantAt(input, -1).scope.max_amount_per_purchase = { minor: 60000, currency: 'BHD' };
    const result = run(input);
    expect(result.reason).toBe('delegation_invalid');
    expect(result.diagnostics.checks.map((c) => [c.check, c.outcome])).toEqual([
      ['payload', 'pass'],
      ['entities', 'pass'],
      ['authority', 'pass'],
      ['chain', 'fail'],
      ['merchant', 'skip'],
      ['amount', 'skip'],
      ['risk', 'skip'],
      ['approval', 'skip'],
    ]);
    const detail = failedCheck(result)?.detail ?? '';
    expect(detail).toContain(grantAt(input, -1).grant_id);
    expect(detail).toContain('max_amount_per_purchase');
  });

  it('names every field in which a child is wider than its parent', () => {
    const input = bhdChainCase();
    const leaf = grantAt(input, -1);
    leaf.scope.valid_until = '2027-01-01T00:00:00Z';
    leaf.scope.allowed_merchant_categories = ['5411', '7995'];
    leaf.scope.blocked_merchant_categories = [];
    grantAt(input, 1).scope.blocked_merchant_categories = ['7995'];
    const detail = failedCheck(run(input))?.detail ?? '';
    expect(detail).toMatch(/valid_until, allowed_merchant_categories, blocked_merchant_categories$/);
  });

  it('gives the chain intersection as effective_scope', () => {
    expect(run(bhdChainCase()).effective_scope).toEqual({
      max_amount_per_purchase: { minor: 25000, currency: 'BHD' },
      max_daily_amount: { minor: 60000, currency: 'BHD' },
      requires_approval_above: { minor: 20000, currency: 'BHD' },
      valid_until: '2026-06-30T00:00:00Z',
      allowed_merchant_categories: ['5411', '5812'],
      allowed_jurisdictions: ['BH'],
      may_delegate: false,
      max_delegation_depth: 0,
    });
  });

  it('gives effective_scope on a later deny, and none when the chain was not accepted', () => {
    const merchantDeny = eurRootCase();
    if (merchantDeny.snapshot.merchant) merchantDeny.snapshot.merchant.category = '7995';
    expect(run(merchantDeny).effective_scope?.blocked_merchant_categories).toEqual(['7995']);
    const revoked = eurRootCase();
    grantAt(revoked, 0).state = 'revoked';
    expect(run(revoked)).not.toHaveProperty('effective_scope');
  });

  it('reserves only for an allowed execute, on every link', () => {
    const deny = eurRootCase();
    deny.request.amount = { minor: 15001, currency: 'EUR' };
    expect(run(deny)).not.toHaveProperty('reservation');
    expect(run(bhdChainCase()).reservation?.grant_ids).toHaveLength(3);
  });

  it('does not modify its inputs', () => {
    const input = bhdChainCase();
    const before = structuredClone(input);
    deepFreeze(input);
    run(input);
    expect(input).toEqual(before);
  });
});

describe('decide: time', () => {
  it('compares valid_until beyond millisecond precision', () => {
    const input = eurRootCase();
    grantAt(input, 0).scope.valid_until = '2026-04-15T10:00:00.0005Z';
    expect(run({ ...input, now: '2026-04-15T10:00:00.000Z' }).decision).toBe('allow_with_constraints');
    expect(run({ ...input, now: '2026-04-15T10:00:00.0005Z' }).reason).toBe('authority_expired');
  });

  it('compares timestamps with offsets by the instant they name', () => {
    const input = eurRootCase();
    grantAt(input, 0).scope.valid_until = '2026-04-15T12:00:00+02:00';
    expect(run(input).reason).toBe('authority_expired');
    grantAt(input, 0).scope.valid_until = '2026-04-15T12:00:01+02:00';
    expect(run(input).decision).toBe('allow_with_constraints');
  });

  it('judges freshness in whole seconds, inclusive on both sides (CONTRACT section 7)', () => {
    const at = (created: number, now: string) => {
      const input = eurRootCase();
      input.snapshot.payload.created = created;
      return run({ ...input, now });
    };
    // exactly 300 s either way is fresh, whatever the fraction of the current second
    for (const now of ['2026-04-15T10:00:00Z', '2026-04-15T10:00:00.5Z', '2026-04-15T10:00:00.999999999Z']) {
      expect(at(NOW_SECONDS - 300, now).decision).toBe('allow_with_constraints');
      expect(at(NOW_SECONDS + 300, now).decision).toBe('allow_with_constraints');
      expect(at(NOW_SECONDS - 301, now).reason).toBe('payload_stale');
      expect(at(NOW_SECONDS + 301, now).reason).toBe('payload_stale');
    }
    // the second is what counts: 09:59:59.5 is second NOW - 1, so NOW + 300 is 301 s ahead
    expect(at(NOW_SECONDS + 300, '2026-04-15T09:59:59.5Z').reason).toBe('payload_stale');
    expect(at(NOW_SECONDS - 299, '2026-04-15T10:00:00.999Z').decision).toBe('allow_with_constraints');
  });

  it('names the target URIs and the verifier failure of an invalid signature in the diagnostics', () => {
    const input = eurRootCase();
    Object.assign(input.snapshot.payload, {
      signature_valid: false,
      signature_failure: 'signature_mismatch',
      target_uris: ['https://pay.example.com/v1/runtime/authorize', 'https://pay.example.net/v1/runtime/authorize'],
    });
    const result = run(input);
    expect(result.reason).toBe('payload_signature_invalid');
    expect(result.diagnostics.checks[0]).toEqual({
      check: 'payload',
      outcome: 'fail',
      reason: 'payload_signature_invalid',
      detail:
        'signature does not verify (signature_mismatch) for @target-uri ' +
        '`https://pay.example.com/v1/runtime/authorize` or `https://pay.example.net/v1/runtime/authorize`',
    });
  });

  it('bounds hostile target URI facts in the detail', () => {
    const input = eurRootCase();
    Object.assign(input.snapshot.payload, {
      signature_valid: false,
      signature_failure: 'no such code, with spaces',
      target_uris: [`https://x.example/${'a'.repeat(5000)}`, 7, ...Array.from({ length: 40 }, () => 'u')],
    });
    const detail = run(input).diagnostics.checks[0]?.detail ?? '';
    expect(detail).toMatch(/^signature does not verify for @target-uri `https:\/\/x\.example\/a+\.\.\.`/);
    expect(detail.match(/`/g)).toHaveLength(2 * 16); // at most 16 URIs named, non-strings dropped
    expect(detail.length).toBeLessThan(80 + 16 * (256 + 6));
  });

  it.each(['', 'yesterday', '2026-04-15 10:00:00Z', '2026-02-30T10:00:00Z', '2026-04-15T10:00:00'])(
    'fails closed on now = %j',
    (now) => {
      const signed = eurRootCase();
      expect(run({ ...signed, now }).reason).toBe('payload_stale');
      const unsigned = eurRootCase();
      unsigned.snapshot.payload.required = false;
      expect(run({ ...unsigned, now }).reason).toBe('authority_expired');
    },
  );
});

describe('decide: requests', () => {
  it('refuses an action that does not match the subject', () => {
    const input = eurRootCase();
    input.request.action = 'search';
    expect(run(input).reason).toBe('capability_not_granted');
  });

  it('refuses a subject that is not a purchase capability', () => {
    const input = eurRootCase();
    input.request.subject = 'ns:capability:payment_action:wire_transfer';
    expect(run(input).reason).toBe('capability_not_granted');
  });

  it('binds the basket by the SHA-256 of its RFC 8785 form', () => {
    const input = eurRootCase();
    const basket = { items: [{ sku: 'café', quantity: 1, unit_minor: 250 }], note: 'é\u{1F600}' };
    input.request.basket = basket;
    const expected = `sha-256:${createHash('sha256')
      .update(canonicalize(basket) ?? '')
      .digest('base64url')}`;
    expect(run(input).obligations).toEqual([
      { type: 'audit.emit' },
      { type: 'basket_hash_binding', basket_hash: expected },
    ]);
  });

  it('binds a basket_hash given without its basket, and refuses a malformed one', () => {
    const input = eurRootCase();
    const hash = `sha-256:${'A'.repeat(43)}`;
    input.request.basket_hash = hash;
    expect(run(input).obligations).toContainEqual({ type: 'basket_hash_binding', basket_hash: hash });
    input.request.basket_hash = 'sha256:abc';
    expect(run(input).reason).toBe('payload_signature_invalid');
  });

  it('refuses a basket that is not canonical JSON', () => {
    const input = eurRootCase();
    input.request.basket = { total: Number.NaN };
    expect(run(input).reason).toBe('payload_signature_invalid');
  });

  it('never lets context decide', () => {
    const input = eurRootCase();
    input.request.context = { decision: 'deny', risk: 'blocked', __proto__: { admin: true } };
    expect(run(input)).toEqual(run(eurRootCase()));
  });

  it('refuses a zero or fractional amount for execute', () => {
    const zero = eurRootCase();
    zero.request.amount = { minor: 0, currency: 'EUR' };
    expect(run(zero).reason).toBe('amount_above_agent_threshold');
    const fraction = eurRootCase();
    fraction.request.amount = { minor: 42.5, currency: 'EUR' };
    expect(run(fraction).reason).toBe('amount_above_agent_threshold');
    const lower = eurRootCase();
    lower.request.amount = { minor: 4250, currency: 'eur' };
    expect(run(lower).reason).toBe('currency_mismatch');
  });

  it('refuses a sum of spent and amount beyond 2^53 instead of rounding it', () => {
    const input = eurRootCase();
    const max = Number.MAX_SAFE_INTEGER;
    grantAt(input, 0).scope = { max_daily_amount: { minor: max, currency: 'EUR' } };
    grantAt(input, 0).spent_today = { minor: max - 1, currency: 'EUR' };
    input.request.amount = { minor: 2, currency: 'EUR' };
    expect(run(input).reason).toBe('daily_limit_exceeded');
  });
});

describe('decide: approvals', () => {
  function approvalCase(status: 'pending' | 'approved'): DecisionInput {
    const input = eurRootCase();
    input.snapshot.risk.principal = 'elevated';
    input.request.policy_decision_id = 'ns:decision:01963a52-0b33-7e6d-8c43-5d7e9f1a3b04';
    const { actor_entity_id, principal_entity_id, subject, merchant_id, amount, instrument_id } = input.request;
    input.snapshot.approval = {
      approval_id: 'ns:approval:01963a52-1c44-7f7e-9d54-6e8fa02b4c05',
      policy_decision_id: input.request.policy_decision_id,
      status,
      expires_at: '2026-04-15T10:15:00Z',
      bound: { actor_entity_id, principal_entity_id, subject, merchant_id, amount, instrument_id },
    };
    return input;
  }

  it('answers a retry under elevated risk by the approval it names', () => {
    expect(run(approvalCase('pending')).reason).toBe('approval_pending');
    expect(run(approvalCase('approved')).reason).toBe('approved_by_principal');
  });

  it('refuses a retry whose basket differs from the approved one', () => {
    const input = approvalCase('approved');
    input.request.basket = { items: [{ sku: 'tv', quantity: 1 }] };
    expect(run(input).reason).toBe('approval_mismatch');
  });

  it('refuses an approval that belongs to another decision', () => {
    const input = approvalCase('approved');
    if (input.snapshot.approval) input.snapshot.approval.policy_decision_id = 'ns:decision:other';
    expect(run(input).reason).toBe('approval_mismatch');
  });

  it('accepts the aliases of the approved ids', () => {
    const input = approvalCase('approved');
    input.request.principal_entity_id = 'ns:human:alice';
    input.request.instrument_id = 'ns:credential:card-token:tok-1';
    expect(run(input).reason).toBe('approved_by_principal');
  });
});

describe('decide: delegation chains', () => {
  it('refuses a chain that repeats a grant (a loop)', () => {
    const input = bhdChainCase();
    const [root, mid] = input.snapshot.grants as [GrantSnapshot, GrantSnapshot, GrantSnapshot];
    input.snapshot.grants = [
      root,
      mid,
      { ...mid, depth: 2, parent_grant_id: mid.grant_id, actor_entity_id: input.request.actor_entity_id },
    ];
    expect(run(input).reason).toBe('delegation_invalid');
  });

  it('stops every grant below a suspended or erased intermediary, and requires its state', () => {
    for (const state of ['suspended', 'tombstoned'] as const) {
      const input = bhdChainCase();
      grantAt(input, 0).actor_state = state;
      const result = run(input);
      expect(result.reason).toBe('authority_revoked');
      expect(result.diagnostics.checks.find((c) => c.check === 'chain')?.detail).toContain('ns:entity:agent:concierge');
    }
    const leafOnly = bhdChainCase();
    grantAt(leafOnly, -1).actor_state = 'suspended'; // the leaf's actor is snapshot.actor, checked at step 2
    expect(run(leafOnly).decision).toBe('allow_with_constraints');
    const unknown = bhdChainCase();
    delete grantAt(unknown, 1).actor_state;
    expect(run(unknown).reason).toBe('delegation_invalid');
  });

  it('refuses a chain cut below its root', () => {
    const input = bhdChainCase();
    input.snapshot.grants = input.snapshot.grants.slice(1).map((g, i) => ({ ...g, depth: i }));
    expect(run(input).reason).toBe('delegation_invalid');
  });

  it('refuses a link for another card token or principal', () => {
    const card = bhdChainCase();
    grantAt(card, 1).resource_id = 'ns:credential:card-token:tok-2';
    expect(run(card).reason).toBe('delegation_invalid');
    const principal = bhdChainCase();
    grantAt(principal, 0).principal_entity_id = 'ns:entity:person:bob';
    expect(run(principal).reason).toBe('delegation_invalid');
  });

  it('refuses a child whose capability is wider than its parent', () => {
    const input = bhdChainCase();
    grantAt(input, 0).capability_id = 'ns:capability:purchase:execute';
    grantAt(input, 1).capability_id = 'ns:capability:payment_action:card_purchase';
    grantAt(input, 2).capability_id = 'ns:capability:purchase:execute';
    expect(run(input).reason).toBe('delegation_invalid');
  });

  it('decides a 10,000-link chain', () => {
    const input = eurRootCase();
    const root = grantAt(input, 0);
    root.scope.may_delegate = true;
    root.actor_state = 'active';
    const grants: GrantSnapshot[] = [root];
    for (let i = 1; i < 10_000; i++) {
      grants.push({
        ...root,
        grant_id: `${root.grant_id}-${i}`,
        parent_grant_id: grants[i - 1]?.grant_id ?? null,
        depth: i,
        scope: {},
      });
    }
    input.snapshot.grants = grants;
    const result = run(input);
    expect(result.decision).toBe('allow_with_constraints');
    expect(result.reservation?.grant_ids).toHaveLength(10_000);
  });

  it('repairs a delegation_invalid when the wider child is narrowed: narrowing is not monotone there', () => {
    const input = bhdChainCase();
    grantAt(input, -1).scope.max_amount_per_purchase = { minor: 60000, currency: 'BHD' };
    expect(run(input).reason).toBe('delegation_invalid');
    grantAt(input, -1).scope.max_amount_per_purchase = { minor: 20000, currency: 'BHD' };
    expect(run(input).decision).toBe('allow_with_constraints');
  });
});

describe('decide: malformed snapshots fail closed', () => {
  const cases: Array<[string, (s: DecisionSnapshot) => void, string]> = [
    ['payload missing', (s) => delete (s as Partial<DecisionSnapshot>).payload, 'payload_signature_missing'],
    ['payload.created a string', (s) => ((s.payload as { created: unknown }).created = '1776247200'), 'payload_stale'],
    ['principal of another type', (s) => s.principal && (s.principal.type = 'agent'), 'principal_inactive'],
    [
      'principal for another id',
      (s) => s.principal && (s.principal.entity_id = 'ns:entity:person:bob'),
      'principal_inactive',
    ],
    ['grants not an array', (s) => ((s as { grants: unknown }).grants = { 0: {} }), 'authority_not_found'],
    ['grant_lookup unknown', (s) => ((s as { grant_lookup: unknown }).grant_lookup = 'maybe'), 'authority_not_found'],
    ['grant state unknown', (s) => ((s.grants[0] as { state: unknown }).state = 'paused'), 'authority_revoked'],
    [
      'valid_until not a timestamp',
      (s) => s.grants[0] && (s.grants[0].scope.valid_until = 'soon'),
      'authority_expired',
    ],
    [
      'limit with a float',
      (s) => s.grants[0] && (s.grants[0].scope.max_amount_per_purchase = { minor: 1.5, currency: 'EUR' }),
      'delegation_invalid',
    ],
    [
      'allowed_actions unknown action',
      (s) =>
        s.grants[0] && ((s.grants[0].scope as { allowed_actions: unknown }).allowed_actions = ['execute', 'launder']),
      'delegation_invalid',
    ],
    ['depth wrong', (s) => s.grants[0] && (s.grants[0].depth = 1), 'delegation_invalid'],
    ['merchant for another id', (s) => s.merchant && (s.merchant.merchant_id = 'elsewhere'), 'merchant_unknown'],
    [
      'merchant without category',
      (s) => s.merchant && ((s.merchant as { category: unknown }).category = null),
      'merchant_unknown',
    ],
    [
      'spent_today malformed',
      (s) => s.grants[0] && ((s.grants[0] as { spent_today: unknown }).spent_today = 12000),
      'daily_limit_exceeded',
    ],
    [
      'spent_today in another currency',
      (s) => s.grants[0] && (s.grants[0].spent_today = { minor: 1, currency: 'USD' }),
      'daily_limit_exceeded',
    ],
    ['risk missing', (s) => delete (s as Partial<DecisionSnapshot>).risk, 'risk_state_blocked'],
    ['risk unknown', (s) => ((s.risk as { actor: unknown }).actor = 'fine'), 'risk_state_blocked'],
  ];

  it.each(cases)('%s', (_name, mutate, reason) => {
    const input = eurRootCase();
    mutate(input.snapshot);
    const result = run(input);
    expect(result.reason).toBe(reason);
    expect(result.decision).toBe('deny');
    expect(result.stop_conditions).toEqual([]);
  });

  it('denies a snapshot that is not an object', () => {
    const input = eurRootCase();
    for (const snapshot of [null, 42, 'snapshot', []]) {
      const result = decide(input.request, snapshot as unknown as DecisionSnapshot, input.now);
      expect(result.decision).toBe('deny');
      expect(result.diagnostics.checks).toHaveLength(CHECK_ORDER.length);
    }
  });

  it('turns a throwing input into a deny of the check that read it', () => {
    const input = eurRootCase();
    Object.defineProperty(input.snapshot, 'merchant', {
      get() {
        throw new Error('boom');
      },
    });
    const result = run(input);
    expect(result).toMatchObject({ decision: 'deny', reason: 'merchant_unknown' });
    expect(REASON_CODES[result.reason as ReasonCode].check).toBe('merchant');
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
