import { decide, type Decision, type DecisionReason, type ReasonCode } from '@aar/core';
import { isAuthorized, statefulIsAuthorized } from '@cedar-policy/cedar-wasm/nodejs';
import type { DecisionCase } from './cases.ts';
import { preparseCedarPolicies, toCedarCall, toPreparsedCedarCall } from './cedar-calls.ts';
import { PERMIT_POLICY_ID } from './cedar-policies.ts';
import { readCedarOutcome, type CedarOutcome } from './read-cedar-outcome.ts';
import { toCedarRequest } from './to-cedar-request.ts';

export interface AnswerComparison {
  name: string;
  want: { decision: Decision; reason: ReasonCode };
  core: { decision: Decision; reason: DecisionReason };
  /** `isAuthorized` (policies parsed per call) */
  cedar: CedarOutcome;
  /** `statefulIsAuthorized` (policies preparsed) */
  preparsedCedar: CedarOutcome;
  /** why the answers cannot be compared; empty when they agree */
  problems: string[];
}

/** Runs one case once through decide and through both Cedar entry points. */
export function compareAnswers(c: DecisionCase): AnswerComparison {
  preparseCedarPolicies();
  const result = decide(c.request, c.snapshot, c.now);
  const request = toCedarRequest(c.request, c.snapshot, c.now);
  const comparison = {
    name: c.name,
    want: c.want,
    core: { decision: result.decision, reason: result.reason },
    cedar: readCedarOutcome(isAuthorized(toCedarCall(request))),
    preparsedCedar: readCedarOutcome(statefulIsAuthorized(toPreparsedCedarCall(request))),
  };
  return { ...comparison, problems: findProblems(comparison) };
}

/**
 * Every way the comparison can be meaningless: decide drifted from the case's expected answer, Cedar's three-way
 * reading differs from decide's, or the policies that decided in Cedar do not include the rule decide named
 * (Cedar reports every forbid that held, decide the first in contract order, so inclusion is the test).
 */
export function findProblems(c: Omit<AnswerComparison, 'problems'>): string[] {
  const problems: string[] = [];
  if (c.core.decision !== c.want.decision || c.core.reason !== c.want.reason) {
    problems.push(
      `decide answered ${c.core.decision}/${c.core.reason}, the case wants ${c.want.decision}/${c.want.reason}`,
    );
  }
  for (const [label, cedar] of [
    ['isAuthorized', c.cedar],
    ['statefulIsAuthorized', c.preparsedCedar],
  ] as const) {
    if (cedar.decision !== c.core.decision) {
      problems.push(`cedar ${label} reads as ${cedar.decision}, decide answered ${c.core.decision}`);
    }
    const decisive = c.core.decision === 'allow_with_constraints' ? PERMIT_POLICY_ID : c.core.reason;
    if (!cedar.policyIds.includes(decisive)) {
      problems.push(`cedar ${label} was decided by [${cedar.policyIds.join(', ')}], not by \`${decisive}\``);
    }
  }
  return problems;
}

/** Throws, naming every disagreement, unless both engines give the same answer on every case. */
export function assertAnswersAgree(cases: readonly DecisionCase[]): AnswerComparison[] {
  const comparisons = cases.map(compareAnswers);
  const problems = comparisons.flatMap((c) => c.problems.map((p) => `${c.name}: ${p}`));
  if (problems.length > 0) throw new Error(`engines disagree, nothing timed:\n${problems.join('\n')}`);
  return comparisons;
}
