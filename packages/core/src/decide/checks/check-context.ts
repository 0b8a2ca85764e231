/**
 * What every check reads, and what it answers. Checks are pure functions of the context; the few facts a later
 * check needs from an earlier one (the chain's scopes, the risk state) are computed once by decide and stored here.
 */
import type { Instant } from '../instant.ts';
import type { ReasonCode } from '../reason-codes.ts';
import type { DecisionRequest, DecisionSnapshot, GrantScope, GrantSnapshot, PurchaseAction } from '../types.ts';

export interface CheckContext {
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  /** undefined when `now` is not a valid timestamp: every time-dependent check then fails closed */
  now: Instant | undefined;
  /** undefined when `request.action` is not one of the seven */
  action: PurchaseAction | undefined;
  /** `snapshot.grants` when it is an array of objects, root first; else empty */
  grants: GrantSnapshot[];
  /** the basket binding: computed from `request.basket` or taken from `request.basket_hash` */
  basket: { hash?: string; problem?: string };
  /** set by the chain check when it passes: every link's own well-formed scope, root first */
  scopes?: GrantScope[];
  /** set by the risk check: some risk state is elevated, so only an approval can allow */
  riskElevated?: boolean;
}

export type CheckVerdict =
  | { outcome: 'pass' | 'skip'; detail?: string; reason?: 'approved_by_principal' }
  | { outcome: 'fail'; reason: ReasonCode; detail?: string };

export type Check = (ctx: CheckContext) => CheckVerdict;

export function fail(reason: ReasonCode, detail: string): CheckVerdict {
  return { outcome: 'fail', reason, detail };
}

export function pass(detail?: string): CheckVerdict {
  return detail === undefined ? { outcome: 'pass' } : { outcome: 'pass', detail };
}

/** Quotes a value taken from input for a detail string, bounded so a hostile value cannot bloat evidence. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return `\`${text.length > 80 ? `${text.slice(0, 77)}...` : text}\``;
}

/** The quoted grant id of link `index`, for details. */
export function idOf(grants: readonly { grant_id: unknown }[], index: number): string {
  return quote(grants[index]?.grant_id);
}
