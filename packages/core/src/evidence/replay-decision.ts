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

/**
 * What an engine before aar-decide/1.2.0 answered where today's answers differ: it also bound the basket on a deny.
 * Old packs stay verifiable: their recorded deny is compared without that obligation. An engine version that does not
 * parse is judged as current.
 */
function legacyAnswerOf(recorded: unknown, engineVersion: unknown): unknown {
  const m = typeof engineVersion === 'string' ? /^aar-decide\/(\d+)\.(\d+)\.\d+$/.exec(engineVersion) : null;
  if (!m || Number(m[1]) > 1 || (Number(m[1]) === 1 && Number(m[2]) >= 2)) return recorded;
  if (typeof recorded !== 'object' || recorded === null) return recorded;
  const { decision, obligations } = recorded as Record<string, unknown>;
  if (decision !== 'deny' || !Array.isArray(obligations)) return recorded;
  return {
    ...recorded,
    obligations: obligations.filter(
      (o) => !(typeof o === 'object' && o !== null && (o as Record<string, unknown>).type === 'basket_hash_binding'),
    ),
  };
}

export function replayDecision(
  request: unknown,
  snapshot: unknown,
  now: string,
  recorded: unknown,
  engineVersion?: unknown,
): ReplayDecision {
  const result = decide(request as DecisionRequest, snapshot as DecisionSnapshot, now);
  const replayed = answerOf(result);
  const expected = answerOf(legacyAnswerOf(recorded, engineVersion));
  return {
    decision: result.decision,
    reason: result.reason,
    obligations: result.obligations,
    stop_conditions: result.stop_conditions,
    matches: replayed !== undefined && replayed === expected,
  };
}
