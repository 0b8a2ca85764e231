/**
 * The chain whose outcome decide kept: `snapshot.grants`, or the alternative the diagnostics name
 * (`chosen_candidate`, 0 being `grants`). What the decision map's delegation and scope nodes, the reservation and the
 * decision's events refer to. Never throws: the snapshot and result may be replayed, edited JSON; anything that does
 * not resolve reads as `snapshot.grants` (the map then shows what the snapshot says, never a guess).
 */
import { isRecord } from './guards.ts';
import type { DecisionResult, DecisionSnapshot } from './types.ts';

export function decidingChain(snapshot: DecisionSnapshot, result: DecisionResult): unknown[] {
  const first: unknown = isRecord(snapshot) ? snapshot.grants : undefined;
  const fallback = Array.isArray(first) ? first : [];
  const chosen: unknown = isRecord(result) && isRecord(result.diagnostics) ? result.diagnostics.chosen_candidate : 0;
  if (typeof chosen !== 'number' || !Number.isSafeInteger(chosen) || chosen <= 0) return fallback;
  const alternatives: unknown = snapshot.alternatives;
  const chain: unknown = Array.isArray(alternatives) ? alternatives[chosen - 1] : undefined;
  return Array.isArray(chain) ? chain : fallback;
}
