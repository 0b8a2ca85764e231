/**
 * The benchmark measures allows or nothing: a deny is cheaper (it stops at the first failing check) and would flatter
 * the service. Two checks per run: sampled response bodies must be allows, and every decision the store recorded
 * during the run must be an allow (the store sees the requests cut off when a run stopped, too).
 */
import { diffCounts, type DecisionCounts } from './count-decisions.ts';

export const ALLOW = 'allow_with_constraints';

export interface AnswerTally {
  /** sampled 2xx bodies whose `decision` was the expected one */
  matched: number;
  /** sampled 2xx bodies that were not */
  unexpected: number;
  /** the first unexpected 2xx answers and the first non-2xx ones: status and start of the body */
  examples: string[];
  inspect(status: number, body: string): void;
}

/** `expect` is given each parsed 2xx body; true when it is the expected answer. Non-2xx are only kept as examples. */
export function createAnswerTally(expect: (body: Record<string, unknown>) => boolean): AnswerTally {
  const tally: AnswerTally = {
    matched: 0,
    unexpected: 0,
    examples: [],
    inspect(status, body) {
      const success = status >= 200 && status <= 299;
      if (success && parsesTo(body, expect)) {
        tally.matched++;
        return;
      }
      if (success) tally.unexpected++;
      if (tally.examples.length < 3) tally.examples.push(`${status} ${body.slice(0, 200)}`);
    },
  };
  return tally;
}

function parsesTo(body: string, expect: (body: Record<string, unknown>) => boolean): boolean {
  try {
    return expect(JSON.parse(body) as Record<string, unknown>);
  } catch {
    return false;
  }
}

export const isAllow = (body: Record<string, unknown>): boolean => body.decision === ALLOW;

export interface RunDecisions {
  allowed: number;
  /** `decision/reason` → count of everything recorded that was not an allow */
  other: DecisionCounts;
}

/** What the store recorded between two counts, split into allows and the rest. */
export function splitDecisions(before: DecisionCounts, after: DecisionCounts): RunDecisions {
  let allowed = 0;
  const other: DecisionCounts = {};
  for (const [key, n] of Object.entries(diffCounts(before, after))) {
    if (key.startsWith(`${ALLOW}/`)) allowed += n;
    else other[key] = n;
  }
  return { allowed, other };
}

/**
 * Throws unless the run decided allows only, at least one per 2xx answer, and the sampled 2xx bodies agree.
 * Non-2xx answers are not decisions: they are reported with the run, not thrown.
 */
export function assertAllAllowed(label: string, ok: number, decisions: RunDecisions, tally: AnswerTally): void {
  const problems: string[] = [];
  if (Object.keys(decisions.other).length > 0) problems.push(`non-allow decisions ${JSON.stringify(decisions.other)}`);
  if (decisions.allowed < ok) problems.push(`${ok} answers but only ${decisions.allowed} allows recorded`);
  if (tally.unexpected > 0)
    problems.push(`${tally.unexpected} sampled answers were not allows: ${tally.examples.join(' | ')}`);
  if (problems.length > 0) throw new Error(`${label}: ${problems.join('; ')}`);
}
