/**
 * A decision's outcome is honoured as the chain records it (chained-state.ts): `reserved` until an outcome was
 * reported, then the last reported one, each an `ns.purchase_authority.<outcome>` entry about the decision (its
 * subject is the decision's id). A stored `outcome` that differs was edited (say `reserved` -> `executed`, so that a
 * `refunded` would then release money that never left) and is refused before anything is built on it.
 * Read once per outcome report (a write that is not authorize's hot path), under the decision row's lock.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';
import { chainedEntriesOf, integrityFailure } from './chained-state.ts';

export const OUTCOME_KINDS = [
  'ns.purchase_authority.executed',
  'ns.purchase_authority.failed',
  'ns.purchase_authority.refunded',
] as const;

/** The outcome the chain's entries (by index) leave a decision that reserved money in. */
export function chainedOutcome(kinds: readonly string[]): string {
  const last = kinds[kinds.length - 1];
  return last === undefined ? 'reserved' : last.slice('ns.purchase_authority.'.length);
}

export async function assertOutcomeChained(
  trx: Transaction<Database>,
  policyDecisionId: string,
  stored: string,
): Promise<void> {
  if (stored === 'none') return; // reserved nothing: no outcome can follow (record-outcome.ts refuses it)
  const entries = await chainedEntriesOf(trx, policyDecisionId, OUTCOME_KINDS);
  if (chainedOutcome(entries.map((e) => e.kind)) !== stored) {
    throw integrityFailure('decisions', policyDecisionId, 'outcome');
  }
}
