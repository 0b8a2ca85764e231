/**
 * Subjects and actions (CONTRACT section 3): `ns:capability:payment_action:card_purchase` is the purchase capability
 * and, as a subject, means `execute`; `ns:capability:purchase:<action>` names one of the seven sub-capabilities.
 */
import { CARD_PURCHASE_CAPABILITY } from '../ids/identifiers.ts';
import type { PurchaseAction } from './types.ts';

export const PURCHASE_ACTIONS: readonly PurchaseAction[] = [
  'search',
  'compare',
  'prepare',
  'request_approval',
  'execute',
  'refund_request',
  'dispute_prepare',
];

/** Actions that move money: they need an instrument, an amount and a known merchant. */
export const MONEY_MOVING_ACTIONS: readonly PurchaseAction[] = ['execute', 'refund_request'];

const SUB_CAPABILITY_PREFIX = 'ns:capability:purchase:';

export function isPurchaseAction(value: unknown): value is PurchaseAction {
  return typeof value === 'string' && (PURCHASE_ACTIONS as readonly string[]).includes(value);
}

/** The action a subject asks for, or undefined when the subject is not a purchase capability. */
export function actionFromSubject(subject: string): PurchaseAction | undefined {
  if (subject === CARD_PURCHASE_CAPABILITY) return 'execute';
  if (typeof subject !== 'string' || !subject.startsWith(SUB_CAPABILITY_PREFIX)) return undefined;
  const action = subject.slice(SUB_CAPABILITY_PREFIX.length);
  return isPurchaseAction(action) ? action : undefined;
}

/** The capability id of a sub-capability (`execute` gives `ns:capability:purchase:execute`). */
export function subCapabilityId(action: PurchaseAction): string {
  return `${SUB_CAPABILITY_PREFIX}${action}`;
}

/**
 * The actions a granted capability covers: the purchase capability covers all seven, a sub-capability its own action
 * (so a grant of `purchase:execute` covers the subject `payment_action:card_purchase`). Anything else covers nothing.
 */
export function actionsCoveredBy(capabilityId: string): readonly PurchaseAction[] {
  if (capabilityId === CARD_PURCHASE_CAPABILITY) return PURCHASE_ACTIONS;
  if (typeof capabilityId !== 'string' || !capabilityId.startsWith(SUB_CAPABILITY_PREFIX)) return [];
  const action = capabilityId.slice(SUB_CAPABILITY_PREFIX.length);
  return isPurchaseAction(action) ? [action] : [];
}
