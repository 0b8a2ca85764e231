/**
 * Replay: run the one decide on the facts a pack recorded and compare with the decision it recorded. Pure; decide
 * itself never throws, and a recorded decision that has no canonical form simply does not match.
 */
import { decide } from '../decide/decide.ts';
import type { DecisionRequest, DecisionSnapshot } from '../decide/types.ts';
import { canonicalJson } from '../json/canonical-json.ts';
import type { ReplayDecision } from './verification-result.ts';

/** The members of a result that replay compares: the answer a caller acted on. */
function answerOf(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const { decision, reason, obligations, stop_conditions } = result as Record<string, unknown>;
  try {
    return canonicalJson({ decision, reason, obligations, stop_conditions });
  } catch {
    return undefined;
  }
}

export function replayDecision(request: unknown, snapshot: unknown, now: string, recorded: unknown): ReplayDecision {
  const result = decide(request as DecisionRequest, snapshot as DecisionSnapshot, now);
  const replayed = answerOf(result);
  const expected = answerOf(recorded);
  return {
    decision: result.decision,
    reason: result.reason,
    obligations: result.obligations,
    stop_conditions: result.stop_conditions,
    matches: replayed !== undefined && replayed === expected,
  };
}
