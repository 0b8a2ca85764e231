import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHECK_ORDER,
  decide,
  REASON_CODES,
  type ReasonCode,
  type Decision,
  type DecisionResult,
  type GrantScope,
  type GrantSnapshot,
  type MinorMoney,
  type PurchaseAction,
} from '../../src/decide/index.ts';
import { buildDecisionMap } from '../../src/decision-map/index.ts';
import { bhdChainCase, eurRootCase, jpyCase, type DecisionInput } from './fixtures.ts';

const RANK: Record<Decision, number> = { deny: 0, require_approval: 1, allow_with_constraints: 2 };
const CATEGORIES = ['5411', '5812', '5499', '5732', '7995'];
const JURISDICTIONS = ['DE', 'FR', 'NL', 'BH', 'JP', 'US'];
const ACTIONS: PurchaseAction[] = [
  'search',
  'compare',
  'prepare',
  'request_approval',
  'execute',
  'refund_request',
  'dispute_prepare',
];
const TIMES = [
  '2026-04-15T09:00:00Z',
  '2026-04-15T10:00:00Z',
  '2026-04-15T10:00:01Z',
  '2026-05-01T00:00:00Z',
  '2026-08-01T00:00:00Z',
];

function run(input: DecisionInput): DecisionResult {
  return decide(input.request, input.snapshot, input.now);
}

const riskState = fc.constantFrom('normal', 'normal', 'normal', 'normal', 'normal', 'normal', 'elevated', 'blocked');

/** A scenario around one of the three base cases: amounts near the limits, other merchants, risk, actions, approvals. */
const scenario: fc.Arbitrary<DecisionInput> = fc
  .record({
    base: fc.constantFrom(eurRootCase, bhdChainCase, jpyCase),
    amountScale: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 2_000 })),
    keepMerchant: fc.constantFrom(true, true, true, false),
    category: fc.constantFrom(...CATEGORIES),
    jurisdiction: fc.constantFrom(...JURISDICTIONS),
    risk: fc.tuple(riskState, riskState, riskState),
    action: fc.constantFrom<PurchaseAction>('execute', 'execute', 'prepare', 'refund_request', 'search'),
    spentPermille: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 3, maxLength: 3 }),
    approval: fc.oneof(
      { arbitrary: fc.constant(null), weight: 3 },
      {
        arbitrary: fc.record({
          status: fc.constantFrom('pending', 'approved', 'rejected', 'expired'),
          exact: fc.boolean(),
        }),
        weight: 1,
      },
    ),
  })
  .map((p) => {
    const input = p.base();
    const { request, snapshot } = input;
    const limit = snapshot.grants.at(-1)?.scope.max_amount_per_purchase ?? { minor: 1000, currency: 'EUR' };
    request.amount = { minor: Math.max(1, Math.floor((limit.minor * p.amountScale) / 1000)), currency: limit.currency };
    if (!p.keepMerchant && snapshot.merchant) {
      snapshot.merchant.category = p.category;
      snapshot.merchant.jurisdiction = p.jurisdiction;
    }
    snapshot.risk = { actor: p.risk[0], principal: p.risk[1], instrument: p.risk[2] } as typeof snapshot.risk;
    request.action = p.action;
    request.subject =
      p.action === 'execute' ? 'ns:capability:payment_action:card_purchase' : `ns:capability:purchase:${p.action}`;
    snapshot.grants.forEach((grant, i) => {
      const daily = grant.scope.max_daily_amount;
      if (daily)
        grant.spent_today = {
          minor: Math.floor((daily.minor * (p.spentPermille[i] ?? 0)) / 1000),
          currency: daily.currency,
        };
    });
    if (p.approval) {
      request.policy_decision_id = 'ns:decision:01963a52-0b33-7e6d-8c43-5d7e9f1a3b04';
      const amount = p.approval.exact ? request.amount : { ...request.amount, minor: request.amount.minor + 1 };
      snapshot.approval = {
        approval_id: 'ns:approval:01963a52-1c44-7f7e-9d54-6e8fa02b4c05',
        policy_decision_id: request.policy_decision_id,
        status: p.approval.status as 'pending',
        expires_at: '2026-04-15T10:10:00Z',
        bound: { ...pick(request), amount },
      };
    }
    return input;
  });

function pick(r: DecisionInput['request']) {
  const { actor_entity_id, principal_entity_id, subject, merchant_id, instrument_id } = r;
  return { actor_entity_id, principal_entity_id, subject, merchant_id, instrument_id };
}

type Narrowing = (grant: GrantSnapshot, input: DecisionInput) => void;

/** One narrowing of one grant field: the new value conveys no authority the old one did not. */
const narrowing: fc.Arbitrary<Narrowing> = fc.oneof(
  fc
    .record({
      field: fc.constantFrom('max_amount_per_purchase', 'max_daily_amount', 'requires_approval_above' as const),
      permille: fc.integer({ min: 0, max: 1000 }),
      addMinor: fc.integer({ min: 0, max: 200_000 }),
      addCurrency: fc.constantFrom('request', 'EUR', 'JPY', 'BHD'),
    })
    .map(({ field, permille, addMinor, addCurrency }): Narrowing => (grant, input) => {
      const current = grant.scope[field];
      if (current) {
        grant.scope[field] = { minor: Math.floor((current.minor * permille) / 1000), currency: current.currency };
      } else {
        const currency = addCurrency === 'request' ? (input.request.amount?.currency ?? 'EUR') : addCurrency;
        grant.scope[field] = { minor: addMinor, currency };
      }
    }),
  fc.constantFrom(...TIMES).map((time): Narrowing => (grant) => {
    const current = grant.scope.valid_until;
    if (current === undefined || time < current) grant.scope.valid_until = time;
  }),
  fc
    .record({
      field: fc.constantFrom('allowed_merchant_categories', 'allowed_jurisdictions', 'allowed_actions' as const),
      mask: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    })
    .map(({ field, mask }): Narrowing => (grant) => {
      const universe = {
        allowed_merchant_categories: CATEGORIES,
        allowed_jurisdictions: JURISDICTIONS,
        allowed_actions: ACTIONS,
      }[field];
      const current: readonly string[] = grant.scope[field] ?? universe;
      (grant.scope as Record<string, unknown>)[field] = current.filter((_, i) => mask[i % mask.length]);
    }),
  fc.subarray(CATEGORIES, { minLength: 1 }).map((extra): Narrowing => (grant) => {
    grant.scope.blocked_merchant_categories = [
      ...new Set([...(grant.scope.blocked_merchant_categories ?? []), ...extra]),
    ];
  }),
  fc.constant<Narrowing>((grant) => {
    grant.scope.may_delegate = false;
  }),
  fc.integer({ min: 0, max: 3 }).map((depth): Narrowing => (grant) => {
    grant.scope.max_delegation_depth = Math.min(depth, grant.scope.max_delegation_depth ?? depth);
  }),
  fc.constantFrom('revoked', 'suspended' as const).map((state): Narrowing => (grant) => {
    grant.state = state;
  }),
);

describe('decide: properties', () => {
  it('narrowing any grant field never makes a decision more permissive (from a chain that is not already invalid)', () => {
    fc.assert(
      fc.property(scenario, fc.nat(), fc.array(narrowing, { minLength: 1, maxLength: 3 }), (input, pickLink, ops) => {
        const before = run(input);
        // A child wider than its parent is delegation_invalid, and narrowing that child repairs it (see decide.test.ts).
        fc.pre(before.reason !== 'delegation_invalid');
        const narrowed = structuredClone(input);
        for (const op of ops) {
          const grant = narrowed.snapshot.grants[pickLink % narrowed.snapshot.grants.length];
          if (grant) op(grant, narrowed);
        }
        const after = run(narrowed);
        expect(RANK[after.decision]).toBeLessThanOrEqual(RANK[before.decision]);
      }),
      { numRuns: 1500 },
    );
  });

  it('lowering the amount keeps an allow an allow (without an approval: an approval binds the exact amount)', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 1, max: 1000 }), (input, permille) => {
        delete input.request.policy_decision_id;
        input.snapshot.approval = null;
        const before = run(input);
        if (before.decision !== 'allow_with_constraints' || !input.request.amount) return;
        const lower = structuredClone(input);
        const amount = lower.request.amount as MinorMoney;
        amount.minor = Math.max(1, Math.floor((amount.minor * permille) / 1000));
        expect(run(lower).decision).toBe('allow_with_constraints');
      }),
      { numRuns: 1000 },
    );
  });

  it('is deterministic, and replaying the stored JSON gives the same result and map bytes', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const first = run(input);
        const second = run(input);
        const replayed = run(JSON.parse(JSON.stringify(input)) as DecisionInput);
        expect(second).toEqual(first);
        // Plain JSON: no undefined member, so the stored result is the result.
        expect(JSON.parse(JSON.stringify(first))).toStrictEqual(first);
        expect(replayed).toEqual(first);
        const ids = {
          decision_map_id: 'ns:decision_map:01963a60-0000-7000-8000-000000000001',
          policy_decision_id: 'ns:decision:01963a60-0000-7000-8000-000000000002',
          audit_ref: 'ns:audit:01963a60-0000-7000-8000-000000000003',
          evidence_refs: [],
          issued_at: input.now,
        };
        const a = buildDecisionMap({ ...ids, request: input.request, snapshot: input.snapshot, result: first });
        const b = buildDecisionMap({ ...ids, request: input.request, snapshot: input.snapshot, result: replayed });
        expect(canonicalize(b)).toBe(canonicalize(a));
      }),
      { numRuns: 500 },
    );
  });

  it('never throws and always answers a well-formed result on mutated input', () => {
    fc.assert(
      fc.property(scenario, fc.nat(), fc.option(fc.jsonValue(), { nil: undefined }), (input, pathPick, value) => {
        const paths = collectPaths(input);
        const path = paths[pathPick % paths.length] ?? [];
        setPath(input, path, value);
        const result = run(input);
        expect(result.diagnostics.checks.map((c) => c.check)).toEqual([...CHECK_ORDER]);
        expect(REASON_CODES[result.reason as ReasonCode].decision).toBe(result.decision);
        expect(result.obligations[0]).toEqual({ type: 'audit.emit' });
        if (result.decision !== 'allow_with_constraints') expect(result.stop_conditions).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('decide: money is exact at the limits', () => {
  const currencies = fc.constantFrom('JPY', 'EUR', 'BHD');
  const limit = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER - 1 });

  function caseWith(currency: string, scope: GrantScope, amount: number, spent = 0): DecisionInput {
    const input = eurRootCase();
    const grant = input.snapshot.grants[0] as GrantSnapshot;
    grant.scope = scope;
    grant.spent_today = { minor: spent, currency };
    input.request.amount = { minor: amount, currency };
    return input;
  }

  it('allows amount == max_amount_per_purchase and refuses one minor unit more', () => {
    fc.assert(
      fc.property(currencies, limit, (currency, max) => {
        const scope = { max_amount_per_purchase: { minor: max, currency } };
        expect(run(caseWith(currency, scope, max)).decision).toBe('allow_with_constraints');
        expect(run(caseWith(currency, scope, max + 1)).reason).toBe('amount_above_agent_threshold');
      }),
    );
  });

  it('allows spent + amount == max_daily_amount and refuses one minor unit more', () => {
    fc.assert(
      fc.property(currencies, limit, fc.nat(), (currency, daily, spentPick) => {
        const spent = spentPick % daily;
        const scope = { max_daily_amount: { minor: daily, currency } };
        expect(run(caseWith(currency, scope, daily - spent, spent)).decision).toBe('allow_with_constraints');
        expect(run(caseWith(currency, scope, daily - spent, spent + 1)).reason).toBe('daily_limit_exceeded');
      }),
    );
  });

  it('needs no approval at requires_approval_above and needs one a minor unit above', () => {
    fc.assert(
      fc.property(currencies, limit, (currency, threshold) => {
        const scope = { requires_approval_above: { minor: threshold, currency } };
        expect(run(caseWith(currency, scope, threshold)).decision).toBe('allow_with_constraints');
        expect(run(caseWith(currency, scope, threshold + 1)).reason).toBe('amount_above_approval_threshold');
      }),
    );
  });
});

type Path = (string | number)[];

function collectPaths(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) collectPaths(inner, [...prefix, key], out);
  }
  return out;
}

function setPath(root: unknown, path: Path, value: unknown): void {
  if (path.length === 0) return;
  let target = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined) delete target[last];
  else target[last] = value;
}
