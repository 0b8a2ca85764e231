/**
 * The decision engine, written by hand: the checks and their order are this product's contract (CONTRACT section 3),
 * and no policy library runs them at millions per second with the diagnostics replay needs.
 *
 * decide is a pure, synchronous, deterministic function of (request, snapshot, now): no clock, no I/O, no
 * randomness, so the server, offline replay and the browser simulator reach the same result from the same facts.
 * It never throws: a malformed input fails the check that reads it, and a check that throws fails with that check's
 * fail-closed reason (a deny).
 */
import { isPurchaseAction } from './action-from-subject.ts';
import { BASKET_HASH_PATTERN, computeBasketHash } from './basket-hash.ts';
import { checkAmount } from './checks/check-amount.ts';
import { checkApproval } from './checks/check-approval.ts';
import { checkAuthority } from './checks/check-authority.ts';
import { checkChain } from './checks/check-chain.ts';
import type { Check, CheckContext, CheckVerdict } from './checks/check-context.ts';
import { checkEntities } from './checks/check-entities.ts';
import { checkMerchant } from './checks/check-merchant.ts';
import { checkPayload } from './checks/check-payload.ts';
import { checkRisk } from './checks/check-risk.ts';
import { computeEffectiveScope } from './effective-scope.ts';
import { canonicalJson } from '../json/canonical-json.ts';
import { isRecord } from './guards.ts';
import { parseInstant } from './instant.ts';
import { UNREADABLE_POLICY_RULES, policyRulesOf, type PolicyOutcome, type PolicyRules } from './policy-rules.ts';
import { CHECK_ORDER, REASON_CODES, type CheckName, type Decision, type ReasonCode } from './reason-codes.ts';
import type {
  CheckDiagnostic,
  DecisionReason,
  DecisionRequest,
  DecisionResult,
  DecisionSnapshot,
  GrantSnapshot,
  Obligation,
  PurchaseAction,
  DecisionStopCondition,
  StopCondition,
} from './types.ts';

const CHECKS: Record<CheckName, Check> = {
  payload: checkPayload,
  entities: checkEntities,
  authority: checkAuthority,
  chain: checkChain,
  merchant: checkMerchant,
  amount: checkAmount,
  risk: checkRisk,
  approval: checkApproval,
};

/** The reason a check fails with when it throws on malformed input. */
const FAIL_CLOSED: Record<CheckName, ReasonCode> = {
  payload: 'payload_signature_invalid',
  entities: 'principal_inactive',
  authority: 'authority_not_found',
  chain: 'delegation_invalid',
  merchant: 'merchant_unknown',
  amount: 'amount_above_agent_threshold',
  risk: 'risk_state_blocked',
  approval: 'approval_mismatch',
};

/** The checks in CONTRACT section 3 order, each with the reason it fails with when it throws. */
const STEPS: readonly { name: CheckName; run: Check; failClosed: ReasonCode }[] = CHECK_ORDER.map((name) => ({
  name,
  run: CHECKS[name],
  failClosed: FAIL_CLOSED[name],
}));

export const ALLOW_STOP_CONDITIONS: readonly StopCondition[] = [
  'actor.stop_signal',
  'delegation.revoked',
  'scope.attenuated',
];

/**
 * Decides one request. `now` is the server's clock as an ISO 8601 timestamp (`2026-04-15T10:00:00Z`); an invalid
 * `now` fails every time-dependent check.
 *
 * Several grants may cover one request (a newer grant in another currency beside an older one, say). The snapshot
 * then carries each covering chain (`grants`, then `alternatives`); decide runs every check under each chain and keeps
 * the most permissive outcome, allow before require_approval before deny, the earliest chain among equals. A request
 * is never judged by a grant that happens to be newest when another grant covers it.
 */
export function decide(request: DecisionRequest, snapshot: DecisionSnapshot, now: string): DecisionResult {
  const req: DecisionRequest = isRecord(request) ? request : ({} as DecisionRequest);
  const snap: DecisionSnapshot = isRecord(snapshot) ? snapshot : ({} as DecisionSnapshot);
  const shared: SharedInput = {
    request: req,
    snapshot: snap,
    now: parseInstant(now),
    action: safely(actionOf, req, undefined),
    basket: safely(bindBasket, req, MALFORMED_REQUEST),
    policy: readPolicy(req, snap),
  };
  const first = safely(grantsOf, snap, []);
  // A malformed `alternatives` only removes options: reading it as none can never allow more (fail closed).
  const alternatives = safely(alternativesOf, snap, undefined);
  if (alternatives === undefined) return evaluate(shared, first);

  const chains = [first, ...alternatives];
  const results = chains.map((grants) => evaluate(shared, grants));
  let chosen = 0;
  results.forEach((result, i) => {
    if (RANK[result.decision] < RANK[results[chosen]!.decision]) chosen = i;
  });
  const kept = results[chosen]!;
  kept.diagnostics.candidates = results.map((result, i) => ({
    grant_id: leafIdOf(chains[i]!) ?? null,
    decision: result.decision,
    reason: result.reason,
  }));
  kept.diagnostics.chosen_candidate = chosen;
  return kept;
}

/** Lower is more permissive. */
const RANK: Record<DecisionResult['decision'], number> = { allow_with_constraints: 0, require_approval: 1, deny: 2 };

type SharedInput = Omit<CheckContext, 'grants' | 'scopes' | 'riskElevated'> & {
  /** aar-decide/1.3.0: the snapshot's rule packs, evaluated on first need; undefined without a `policy_set` */
  policy: PolicyRules | undefined;
};

/**
 * Every check under one chain, and with a policy set, its rules (aar-decide/1.3.0, CONTRACT section 19 "Order"):
 * after checks 1-7 pass (or only the elevated-risk check fails), the first matched deny rule decides (the approval
 * check skipped); else elevated risk stands; else a matched require_approval rule asks for approval unless the
 * request is the retry of one, which the approval check then judges as always.
 */
function evaluate(shared: SharedInput, grants: GrantSnapshot[]): DecisionResult {
  const ctx: CheckContext = {
    request: shared.request,
    snapshot: shared.snapshot,
    now: shared.now,
    action: shared.action,
    basket: shared.basket,
    grants,
  };
  const req = ctx.request;
  const checks: CheckDiagnostic[] = [];
  // the first failing check decides; every later one is skipped
  let decisive: DecisionReason | undefined;
  let decision: Decision | undefined;
  let approved = false;
  // set when this chain evaluated the rules (step 2 of CONTRACT section 19's order ran)
  let rules: PolicyOutcome | undefined;
  for (const step of STEPS) {
    if (decisive) {
      checks.push({ check: step.name, outcome: 'skip' });
      continue;
    }
    if (step.name === 'approval' && shared.policy) {
      rules = shared.policy.outcome();
      const rule = rules.deny ?? (req.policy_decision_id === undefined ? rules.approval : undefined);
      if (rule) {
        decisive = rule.reason!;
        decision = rule.effect === 'deny' ? 'deny' : 'require_approval';
        checks.push({ check: step.name, outcome: 'skip' });
        continue;
      }
    }
    const verdict = runCheck(step, ctx);
    checks.push(toDiagnostic(step.name, verdict));
    if (verdict.outcome === 'fail') {
      decisive = verdict.reason;
      if (verdict.reason === 'risk_state_elevated' && shared.policy) {
        // elevated risk asks for approval, but a matched deny rule still denies (rules only narrow)
        rules = shared.policy.outcome();
        if (rules.deny) {
          decisive = rules.deny.reason!;
          decision = 'deny';
        }
      }
    } else if (verdict.reason === 'approved_by_principal') approved = true;
  }
  const reason: DecisionReason = decisive ?? (approved ? 'approved_by_principal' : 'scope_within_attenuated_authority');
  decision ??= REASON_CODES[reason as ReasonCode].decision;
  const obligations: Obligation[] = [{ type: 'audit.emit' }];
  // A deny authorises nothing, so there is no basket to hold the caller to (aar-decide/1.2.0).
  if (ctx.basket.hash && decision !== 'deny') {
    obligations.push({ type: 'basket_hash_binding', basket_hash: ctx.basket.hash });
  }
  const stopConditions: DecisionStopCondition[] =
    decision === 'allow_with_constraints' ? ALLOW_STOP_CONDITIONS.slice() : [];
  const diagnostics: DecisionResult['diagnostics'] = { checks };
  const leafId = leafIdOf(grants);
  if (leafId !== undefined) diagnostics.grant_id = leafId;
  if (rules) {
    if (decision !== 'deny') addRuleObligations(obligations, rules);
    if (decision === 'allow_with_constraints') {
      for (const stop of rules.stopConditions) if (!stopConditions.includes(stop)) stopConditions.push(stop);
    }
    diagnostics.rules = rules.diagnostics.slice();
  }
  const result: DecisionResult = {
    decision,
    reason,
    obligations,
    stop_conditions: stopConditions,
    diagnostics,
  };
  if (decision === 'allow_with_constraints' && ctx.action === 'execute' && req.amount) {
    result.reservation = {
      amount: { minor: req.amount.minor, currency: req.amount.currency },
      grant_ids: grants.map((grant) => grant.grant_id),
    };
  }
  if (ctx.scopes) result.effective_scope = computeEffectiveScope(ctx.scopes);
  if (rules?.shadow) result.shadow = rules.shadow.map((outcome) => ({ ...outcome }));
  return result;
}

/** The matched rules' obligations after the built-in ones, skipping any already listed (canonical JSON equality). */
function addRuleObligations(obligations: Obligation[], rules: PolicyOutcome): void {
  if (rules.obligations.length === 0) return;
  const listed = new Set(obligations.map((obligation) => canonicalJson(obligation)));
  for (const obligation of rules.obligations) {
    if (!listed.has(canonicalJson(obligation))) obligations.push(obligation);
  }
}

/** A snapshot whose `policy_set` member cannot even be read (a throwing getter) denies through its rules. */
function readPolicy(request: DecisionRequest, snapshot: DecisionSnapshot): PolicyRules | undefined {
  try {
    return policyRulesOf(request, snapshot);
  } catch {
    return UNREADABLE_POLICY_RULES;
  }
}

/** `{ check, ...verdict }` with the verdict's keys in their order (outcome, reason, detail), built without a spread. */
function toDiagnostic(name: CheckName, verdict: CheckVerdict): CheckDiagnostic {
  const diagnostic: CheckDiagnostic = { check: name, outcome: verdict.outcome };
  if (verdict.reason !== undefined) diagnostic.reason = verdict.reason;
  if (verdict.detail !== undefined) diagnostic.detail = verdict.detail;
  return diagnostic;
}

function leafIdOf(grants: readonly GrantSnapshot[]): string | undefined {
  const id: unknown = grants[grants.length - 1]?.grant_id;
  return typeof id === 'string' ? id : undefined;
}

function runCheck(step: (typeof STEPS)[number], ctx: CheckContext): CheckVerdict {
  try {
    return step.run(ctx);
  } catch {
    return { outcome: 'fail', reason: step.failClosed, detail: 'malformed input' };
  }
}

/**
 * Reads a value from input that may throw (a getter in a hostile object); the fallback fails closed later.
 * `read` is a module-level function of `from`, not a closure: nothing is allocated per call.
 */
function safely<F, T>(read: (from: F) => T, from: F, fallback: T): T {
  try {
    return read(from);
  } catch {
    return fallback;
  }
}

function actionOf(request: DecisionRequest): PurchaseAction | undefined {
  return isPurchaseAction(request.action) ? request.action : undefined;
}

/** A request whose basket fields cannot even be read. Shared: the checks only read `ctx.basket`. */
const MALFORMED_REQUEST: CheckContext['basket'] = Object.freeze({ problem: 'request is malformed' });

function grantsOf(snapshot: DecisionSnapshot): GrantSnapshot[] {
  return readGrants(snapshot.grants);
}

function alternativesOf(snapshot: DecisionSnapshot): GrantSnapshot[][] | undefined {
  return readAlternatives(snapshot.alternatives);
}

/** The chain as an array of objects; any other shape is read as no chain (the authority check then denies). */
function readGrants(value: unknown): GrantSnapshot[] {
  if (!Array.isArray(value) || !value.every(isRecord)) return [];
  return value as unknown as GrantSnapshot[];
}

/** At most this many alternatives are read; the server never sends more (services/authorize/grant-chain.ts). */
export const MAX_ALTERNATIVES = 32;

/** undefined when there are none: the snapshot then decides exactly as before aar-decide/1.2.0. */
function readAlternatives(value: unknown): GrantSnapshot[][] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const chains: GrantSnapshot[][] = [];
  // Every index is read, holes included (a sparse array from a JS caller): a hole is no chain, like any non-array.
  // `map` would skip it and leave a hole among the candidates.
  const count = Math.min(value.length, MAX_ALTERNATIVES);
  for (let i = 0; i < count; i++) chains.push(readGrants(value[i]));
  return chains;
}

function bindBasket(request: DecisionRequest): CheckContext['basket'] {
  const given = request.basket_hash;
  if (given !== undefined && (typeof given !== 'string' || !BASKET_HASH_PATTERN.test(given))) {
    return { problem: 'basket_hash is not `sha-256:` + base64url' };
  }
  if (request.basket === undefined) return given === undefined ? {} : { hash: given };
  let computed: string;
  try {
    if (!isRecord(request.basket)) throw new Error('not an object');
    computed = computeBasketHash(request.basket);
  } catch {
    return { problem: 'basket is not canonical json' };
  }
  if (given !== undefined && given !== computed) return { problem: 'basket_hash does not match the basket' };
  return { hash: computed };
}
