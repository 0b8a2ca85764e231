import { decide, type DecisionSnapshot, type ReasonCode } from '@aar/core';
import { isAuthorized, validate, type AuthorizationAnswer } from '@cedar-policy/cedar-wasm/nodejs';
import { describe, expect, it } from 'vitest';
import { DECISION_CASES, type DecisionCase } from './decide-vs-cedar/cases.ts';
import { toCedarCall } from './decide-vs-cedar/cedar-calls.ts';
import { CEDAR_POLICIES } from './decide-vs-cedar/cedar-policies.ts';
import { CEDAR_SCHEMA } from './decide-vs-cedar/cedar-schema.ts';
import { compareAnswers, findProblems } from './decide-vs-cedar/compare-answers.ts';
import { readCedarOutcome } from './decide-vs-cedar/read-cedar-outcome.ts';
import { toCedarRequest } from './decide-vs-cedar/to-cedar-request.ts';

const [allowCase] = DECISION_CASES;

/** The allowed case with one fact changed, so that one more rule decides. */
function mutate(name: string, reason: ReasonCode, change: (snapshot: DecisionSnapshot) => void): DecisionCase {
  const base = structuredClone(allowCase!);
  change(base.snapshot);
  const decision = reason === 'risk_state_elevated' ? 'require_approval' : 'deny';
  return { ...base, name, want: { decision, reason } };
}

const MUTATED_CASES: DecisionCase[] = [
  mutate('jurisdiction outside the grant', 'jurisdiction_not_allowed', (s) => {
    s.merchant!.jurisdiction = 'US';
  }),
  mutate('daily limit exceeded', 'daily_limit_exceeded', (s) => {
    s.grants[0]!.spent_today.minor = 47000;
  }),
  mutate('grant revoked', 'authority_revoked', (s) => {
    s.grants[0]!.state = 'revoked';
  }),
  mutate('payload stale', 'payload_stale', (s) => {
    s.payload.created = 1776247200 - 301;
  }),
  mutate('risk elevated', 'risk_state_elevated', (s) => {
    s.risk.actor = 'elevated';
  }),
  mutate('card token of another principal', 'instrument_not_bound', (s) => {
    s.instrument!.principal_entity_id = 'ns:entity:person:bob';
  }),
];

describe('decide vs cedar: the benchmark cases', () => {
  it.each(DECISION_CASES.map((c) => [c.name, c] as const))('%s: both engines give the same answer', (_, c) => {
    const comparison = compareAnswers(c);
    expect(comparison.problems).toEqual([]);
    expect(comparison.core).toEqual(c.want);
    expect(comparison.cedar.decision).toBe(c.want.decision);
    expect(comparison.preparsedCedar.decision).toBe(c.want.decision);
  });

  it('covers an allow, a deny and a require_approval', () => {
    expect(DECISION_CASES.map((c) => c.want.decision).sort()).toEqual([
      'allow_with_constraints',
      'deny',
      'require_approval',
    ]);
  });
});

describe('decide vs cedar: the policy set is the same rules', () => {
  it.each(MUTATED_CASES.map((c) => [c.name, c] as const))('%s: both engines name the rule', (_, c) => {
    expect(compareAnswers(c).problems).toEqual([]);
  });

  it('type-checks against the schema', () => {
    const answer = validate({ schema: CEDAR_SCHEMA, policies: { staticPolicies: { ...CEDAR_POLICIES } } });
    expect(answer.type).toBe('success');
    if (answer.type !== 'success') return;
    expect(answer.validationErrors).toEqual([]);
    expect(answer.validationWarnings).toEqual([]);
  });

  it.each(DECISION_CASES.map((c) => [c.name, c] as const))('%s: the translated request fits the schema', (_, c) => {
    const call = toCedarCall(toCedarRequest(c.request, c.snapshot, c.now));
    const answer = isAuthorized({ ...call, schema: CEDAR_SCHEMA, validateRequest: true });
    expect(answer.type === 'failure' ? answer.errors.map((e) => e.message) : []).toEqual([]);
    expect(readCedarOutcome(answer).decision).toBe(decide(c.request, c.snapshot, c.now).decision);
  });
});

describe('readCedarOutcome', () => {
  const deny = (reason: string[], errors: number = 0): AuthorizationAnswer => ({
    type: 'success',
    warnings: [],
    response: {
      decision: 'deny',
      diagnostics: {
        reason,
        errors: Array.from({ length: errors }, () => ({
          policyId: 'daily_limit_exceeded',
          error: { message: 'overflow', help: null, code: null, url: null, severity: null },
        })),
      },
    },
  });

  it('reads a deny decided only by approval forbids as require_approval', () => {
    expect(readCedarOutcome(deny(['amount_above_approval_threshold'])).decision).toBe('require_approval');
  });

  it('reads approval plus any other forbid as deny', () => {
    expect(readCedarOutcome(deny(['amount_above_approval_threshold', 'daily_limit_exceeded'])).decision).toBe('deny');
  });

  it('reads a deny without any forbid (no permit applied) as deny', () => {
    expect(readCedarOutcome(deny([])).decision).toBe('deny');
  });

  it('fails closed on an allow that skipped an erroring policy', () => {
    const answer = deny([], 1);
    if (answer.type === 'success') answer.response.decision = 'allow';
    expect(readCedarOutcome(answer).decision).toBe('deny');
  });

  it('fails closed when the call fails', () => {
    expect(readCedarOutcome({ type: 'failure', errors: [], warnings: [] }).decision).toBe('deny');
  });
});

describe('findProblems', () => {
  it('refuses to compare answers that differ', () => {
    const problems = findProblems({
      name: 'x',
      want: { decision: 'deny', reason: 'merchant_category_blocked' },
      core: { decision: 'deny', reason: 'merchant_category_blocked' },
      cedar: { decision: 'allow_with_constraints', policyIds: ['purchase_execute'] },
      preparsedCedar: { decision: 'deny', policyIds: ['merchant_category_blocked'] },
    });
    expect(problems).toHaveLength(2);
  });

  it('refuses a case whose decide answer drifted from the expected one', () => {
    const problems = findProblems({
      name: 'x',
      want: { decision: 'require_approval', reason: 'amount_above_approval_threshold' },
      core: { decision: 'deny', reason: 'daily_limit_exceeded' },
      cedar: { decision: 'deny', policyIds: ['daily_limit_exceeded'] },
      preparsedCedar: { decision: 'deny', policyIds: ['daily_limit_exceeded'] },
    });
    expect(problems).toHaveLength(1);
  });
});
